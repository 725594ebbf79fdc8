// File: policy/baseline/tetris.h
//
// tetris: multi-resource packing (Grandl et al., "Multi-Resource Packing for
// Cluster Schedulers", SIGCOMM'14, section 3), the Tetris baseline of
// DAGPS (001_a7e14c78d79bdb00.txt, section 8) and COBRA
// (000_c5944f69f0d31298.txt). When a machine has free resources, it is
// offered to the ready groups whose demand fits there, and the group with the
// highest score
//     alignment(demand, free) - eps * remaining_work(job)
// gets one task; scores are recomputed and the offer repeats until nothing
// fits. alignment and remaining work are policy/common/packing.h's: the dot
// product of demand and free resources normalized by the machine's capacity,
// and the sum over the job's unfinished tasks of duration x normalized demand
// (the shortest-remaining-time term favours jobs with less work left). A
// newly ready group's tasks each go to the candidate machine with the best
// alignment. Ties go to the earlier group in FIFO order, the lower machine.
//
// eps: Tetris sets the multiplier so that the two terms are comparable,
// eps = m * (mean alignment) / (mean remaining work), the means taken here
// over the groups that fit the offered machine; param srpt_weight is m,
// default 1 (the terms weigh alike). DAGPS, with the same form for its eta,
// found m in [0.1, 0.3] best for its own matcher (section 8.5); pass
// srpt_weight=0.2 to use that. srpt_weight=0 is pure packing.
//
// Clairvoyant: remaining work uses the true durations (with estimate_noise
// if set). Per-job remaining work is computed once when the job arrives and
// decreased as its tasks finish, never recomputed.
// Deliberate departures: no fairness knob (Tetris's knob f): all jobs
// compete on score; no overbooking and no barrier-aware boost; a group is
// scored by its front task (all tasks of a stage share a demand).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kTetrisInfo;

}  // namespace weft::policy::baseline
