// File: metrics/exact_solver.h
//
// An exact solver for tiny scheduling instances: the shortest makespan of a
// non-preemptive schedule of a few tasks with precedence constraints and
// multi-resource demands on one to a few machines (each task on one machine,
// within its capacity, as the engine runs them). Used by the tests to show
// that every lower bound of metrics/lower_bounds.h is at most the optimum and
// to measure how far each policy is from it (DAGPS section 6 and 8.4 can only
// compare with a bound; here the optimum itself is known).
//
// Method: depth-first branch and bound over semi-active schedules. Some
// optimal schedule is semi-active (no task can start earlier with everything
// else fixed), and in a semi-active schedule every task starts at time 0 or at
// the end of another task: otherwise it could move left by a small amount
// without meeting a parent's end or a change in the set of running tasks.
// So the search visits time 0 and then each end time in order, and at each
// one chooses which ready tasks start now and on which machine (any subset,
// including none while something runs). It prunes with a critical-path and a
// work bound, and skips a machine whose capacity and free room equal an
// earlier one's (symmetric choices). Exhaustive within those rules, so exact.
// Exponential: refuses more than kMaxExactTasks tasks or kMaxExactMachines
// machines, and gives up (ResourceExhausted) after a node budget.
// Plain functions; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time.h"
#include "model/cluster.h"
#include "model/job.h"
#include "model/resources.h"

namespace weft {

inline constexpr size_t kMaxExactTasks = 12;
inline constexpr size_t kMaxExactMachines = 3;

struct ExactTask {
  TimeUs duration_us = 0;
  Resources demand;
  std::vector<uint32_t> parents;  // indices of earlier tasks
};

struct ExactProblem {
  std::vector<ExactTask> tasks;  // parents before children
  std::vector<Resources> machines;
};

struct ExactSchedule {
  TimeUs makespan_us = 0;
  std::vector<TimeUs> start_us;     // per task
  std::vector<uint32_t> machine;    // per task
  uint64_t nodes = 0;               // search nodes visited
};

// ExactProblemOf turns one job on `cluster` into an instance: one task per
// task of the job (with its own demand), barrier edges to every task of the
// parent stage, pipelined ones to the same index. A shuffle edge without
// shuffle_mb is a barrier here: launching a child early only holds its
// demand sooner, its own work still waits for the last parent task, so the
// optimum is the barrier's. A task with profiled phases is a chain of one
// task per phase (a relaxation: its phases may land on different machines;
// a first "shuffle" phase behind a shuffle edge waits for no parent), so the
// optimum stays a lower bound of every run. InvalidArgument for resource
// phases (machine-dependent durations), shuffle copies (shuffle_mb > 0), too
// many tasks or machines.
absl::StatusOr<ExactProblem> ExactProblemOf(const Job& job, const Cluster& cluster);

// SolveExact returns an optimal schedule. InvalidArgument for an instance
// that is too big or malformed (a task fitting no machine, a parent index not
// before its child); ResourceExhausted when `max_nodes` search nodes did not
// suffice.
absl::StatusOr<ExactSchedule> SolveExact(const ExactProblem& problem, uint64_t max_nodes = 20'000'000);

}  // namespace weft
