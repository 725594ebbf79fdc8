// File: policy/baseline/fair_slots.h
//
// fair-slots: the Hadoop 1 Fair Scheduler as RAS's experiments ran it (Polo
// et al., Middleware 2011, §4): every TaskTracker has `map_slots` map slots
// and `reduce_slots` reduce slots, fixed, whatever the tasks use. A free slot
// goes to the pool (one per user) running the fewest tasks of that slot kind,
// and within it to the job running the fewest (Hadoop's fair sharing inside
// a pool); ties to the earliest job (priority, then arrival). Reducers run when the engine makes them ready: at the edge's
// slow start for shuffle edges, after the last map for barrier edges.
// Because slots ignore resources, the policy overbooks cpu, memory, disk and
// network (Policy::overbooked()): under the contention model co-located tasks
// slow down and memory used beyond a machine's capacity fails the newest
// tasks, as it would on a real TaskTracker. Non-clairvoyant.
// Departures: no preemption, minimum shares or delay scheduling; pool weights
// are 1 (the paper's experiment has one user).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kFairSlotsInfo;

}  // namespace weft::policy::baseline
