// File: policy/common/monotasks.h
//
// Monotasks (Ursa, 002_872a20c16a9dbee0.txt section 4.1): a task seen as a
// sequence of single-resource units of work. A stage that lists `phases` has
// them; for a stage that does not, DeriveMonotasks gives the sequence its
// demand, usage and duration imply, so a policy that reasons in monotasks
// (per-resource load, remaining per-resource work) can take any workload or
// trace. The rule, chosen to keep each resource's share of the task's time:
//   - a task of duration d that uses u_r of resource r on average does
//     u_r * d of r's work over its life: u_cpu * d core-seconds, u_disk * d
//     and u_net * d MB (the units of Phase::work);
//   - one monotask per resource with work > 0, in the order a data-parallel
//     task does them: net (pull its input), disk (read/write), cpu;
//   - a task that uses none of cpu, disk and net gets one cpu monotask of
//     d seconds on one core (it still takes time on the machine).
// Memory is not a monotask: a task holds it for its whole life.
// The derived sequence is an estimate for policies: the platform still runs
// a stage without phases as one unit (it has no phases to hand to a node
// agent). Plain functions; no state; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "model/job.h"
#include "policy/job_view.h"

namespace weft::policy {

// Per-resource amounts of monotask work, indexed by Resource (kMem unused).
using MonotaskWork = std::array<double, kNumResources>;

// DeriveMonotasks: the rule above for a task of `duration_us` using `usage`
// on average.
std::vector<Phase> DeriveMonotasks(const Resources& usage, TimeUs duration_us);

// TaskMonotasks: the monotasks of task `t` as policy `job` may know them:
// its stage's phases when visible, else DeriveMonotasks of its expected usage
// and estimated duration.
std::vector<Phase> TaskMonotasks(const JobView& job, const TaskRef& t);

// WorkOf sums the work of `phases` per resource.
MonotaskWork WorkOf(const std::vector<Phase>& phases);

}  // namespace weft::policy
