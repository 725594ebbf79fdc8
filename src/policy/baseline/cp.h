// File: policy/baseline/cp.h
//
// cp: critical-path-first scheduling (CPSched), the "CP: critical path order"
// baseline of DAGPS (001_a7e14c78d79bdb00.txt, sections 2.2 and 8.1): ready
// groups are served in decreasing order of the remaining critical-path length
// of their stage (the longest chain of stage durations from the stage to any
// sink, policy/common/dag_ranks.h), ties in FIFO order (priority, arrival, job,
// stage). Placement is the shared offer mechanism, once per instant
// (policy/common/offer_scheduler.h): groups in that order, new groups first
// fit, waiting groups on the machines that freed resources; a stage released
// by a task's end competes for the slot that end freed.
// Clairvoyant: it reads true durations (perturbed by estimate_noise if set).
// Deliberate departures: ranks are per stage, not per task (a stage's length
// is its longest task); the order is across all jobs, as in DAGPS's simulated
// CP, rather than inside each job atop a FIFO or capacity scheduler (Tez+CP).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kCpInfo;

}  // namespace weft::policy::baseline
