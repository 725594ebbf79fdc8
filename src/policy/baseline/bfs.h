// File: policy/baseline/bfs.h
//
// bfs: breadth-first stage order, the "BFS: breadth first order" baseline of
// DAGPS (001_a7e14c78d79bdb00.txt, section 8.1) and the order Tez and Dryad
// use (section 10): ready groups are served in increasing depth of their stage
// (longest distance from a root of the job's DAG, policy/common/dag_ranks.h),
// ties in FIFO order (priority, arrival, job, stage). Placement is the shared
// offer mechanism, once per instant (policy/common/offer_scheduler.h): groups
// in that order, new groups first fit, waiting groups on the machines that
// freed resources. Non-clairvoyant: depth needs no durations.
// Deliberate departure: the order is across all jobs (a shallow stage of a
// later job goes before a deep stage of an earlier one), as in DAGPS's
// simulated BFS, rather than inside each job atop FIFO (Tez).
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kBfsInfo;

}  // namespace weft::policy::baseline
