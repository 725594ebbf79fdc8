// File: policy/baseline/coffman_graham.h
//
// coffman-graham: Coffman and Graham's list schedule ("Optimal scheduling
// for two-processor systems", Acta Informatica 1972), the CG baseline of
// DAGPS (001_a7e14c78d79bdb00.txt, sections 8.1 and 8.3, "Fit all"),
// generalized to multi-resource tasks the way DAGPS uses it: the labels order
// the tasks, and the list scheduler starts the highest-labelled ready task
// whose whole demand vector fits a machine, backfilling lower labels when it
// does not (the shared offer mechanism, policy/common/offer_scheduler.h).
//
// Labels: tasks are labelled 1, 2, ... from the sinks up; each time, among the
// unlabelled tasks all of whose children are labelled, the one whose
// decreasing sequence of children's labels is lexicographically smallest (a
// prefix is smaller) gets the next label. Higher labels run first. On unit
// tasks and two processors this is optimal; on real DAGs it ignores durations
// and demands (DAGPS: "it does not perform well on production DAGs").
// Computed at stage granularity but exactly as task-level CG would label a DAG
// of barrier edges: the tasks of a stage have the same children, so CG may
// give them consecutive labels; a stage's key is then the concatenation of its
// child stages' label runs, compared run by run (O(runs), not O(tasks)).
// Across jobs: FIFO (priority, arrival), labels order the stages of a job;
// param across_jobs=label compares labels across jobs instead (as cp and
// bfs compare their ranks), ties in FIFO order.
// Deliberate departures: pipelined edges are labelled like barriers; no
// "fit cpu/mem" variant (it would need declared overbooking of disk and net).
// Non-clairvoyant: the labels need only the DAG.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/job_view.h"
#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kCoffmanGrahamInfo;

// CoffmanGrahamLabels returns, per stage, the first label its tasks get (its
// tasks hold labels [first, first + tasks)).
std::vector<uint64_t> CoffmanGrahamLabels(const JobView& job);

}  // namespace weft::policy::baseline
