// File: policy/baseline/delay.h
//
// delay: the fair scheduler with delay scheduling (Zaharia et al., "Delay
// Scheduling: A Simple Technique for Achieving Locality and Fairness in
// Cluster Scheduling", EuroSys'10, section 3 and its multi-level algorithm in
// section 5). Machines are shared among users exactly as `fair` does
// (policy/common/fair_share.h); what changes is which task a job may run on
// the machine it is offered:
//   - a task whose preferred machines (JobView::preferences) include the
//     machine is node-local and always may run; so may a task without
//     preferences;
//   - otherwise the job is skipped (the machine goes to the next job or user)
//     and starts waiting. After `node_wait` seconds of waiting it may run
//     rack-local tasks (a preferred machine shares the machine's rack), and
//     after `rack_wait` more seconds any task anywhere.
//   - Like the paper's j.level, a job keeps the locality level it last
//     launched at: a rack-local launch lets it go on launching rack-local
//     tasks (and start a fresh rack_wait towards "anywhere" when skipped), a
//     node-local launch brings it back to level node; any launch ends the
//     current wait.
// Waits expire on timers, so a waiting job is reconsidered when its wait ends
// even if no machine frees up then.
// Departures: waiting is per job, as in the paper, but the wait is measured in
// simulated seconds from the first skip rather than accumulated between
// heartbeats; there is no preemption and no per-job maximum wait. Non-
// clairvoyant.
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kDelayInfo;

}  // namespace weft::policy::baseline
