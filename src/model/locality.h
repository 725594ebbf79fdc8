// File: model/locality.h
//
// RemoteReadUs: what the cluster's locality cost (LocalityCost,
// docs/workload-format.md "locality_cost") charges a task that is placed off
// the machines holding its input. The charge is a wait on the task's machine
// before its work begins (sim/locality.cc); a task placed on one of its
// `locality` machines, or with no such list, pays nothing. Pure: the engine,
// the schedule checker and the run's metrics all compute the same figure.
#pragma once

#include <cstdint>

#include "core/time.h"
#include "model/cluster.h"
#include "model/job.h"

namespace weft {

// RemoteReadUs: the extra time task `task` of `stage` waits before its work
// when it runs on `machine`, which is not one of its `locality` machines;
// `same_rack` says whether one of them shares the machine's rack. 0 when the
// cost is off.
//   - bandwidths: the task reads its input_mb at rack_mbps (same rack) or
//     cross_rack_mbps (another rack); a task without input_mb pays nothing;
//   - factors: the task's read part runs F (rack_factor) or G (remote_factor)
//     times slower, so it pays (F-1) or (G-1) times the read part; the read
//     part is the time to read input_mb at the machine's disk bandwidth,
//     capped at the task's duration, and the whole duration when the task
//     gives no input_mb or the machine has no disk bandwidth (a task with a
//     locality list but no size is taken to be a scan: all read).
TimeUs RemoteReadUs(const Cluster& cluster, const Stage& stage, uint32_t task, MachineId machine, bool same_rack);

}  // namespace weft
