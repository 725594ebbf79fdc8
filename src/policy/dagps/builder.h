// File: policy/dagps/builder.h
//
// BuildSchedule: DAGPS's offline schedule builder for one DAG
// (001_a7e14c78d79bdb00.txt, section 4, Fig. 5 BuildSchedule, Fig. 6 and 7).
// For every candidate division {T, O, P, C} (troublesome.h), T is placed
// first on an empty resource-time space (PlaceTasks: the better of forwards
// and backwards), then the rest in each of the four orders that cannot
// dead-end (section 4.3), each subset in the only direction(s) that respect
// the dependencies already placed:
//     TOCP: PlaceTasks(O), PlaceTasksF(C), PlaceTasksB(P)
//     TOPC: PlaceTasks(O), PlaceTasksB(P), PlaceTasksF(C)
//     TCOP: PlaceTasksF(C), PlaceTasksB(O), PlaceTasksB(P)
//     TPOC: PlaceTasksB(P), PlaceTasksF(O), PlaceTasksF(C)
// and the most compact placement over all candidates and orders is kept
// (ties: the first found). OrderTasks then ranks tasks by planned start:
// priScore = 1 - rank / n, 1 for the first task, about 0 for the last (§5).
//
// Enhancements of section 4.4 that are implemented: barrier partitions (the
// DAG is cut at "bridge" stages, comparable to every other stage, into parts
// that any schedule runs one after the other; each part is built alone and
// the plans are concatenated), reasoning over stages (readiness, scores and
// subsets per stage; tasks only for placement), a placement data structure
// that makes the common fit query cheap (space.h). Not implemented: the
// paper's "few other ideas", and overbooking inside the plan.
//
// The result is plain data a test or tool can inspect (FormatSchedule; see
// `weft_bench_dagps_plan --print` in bench/ and docs/policies.md).
// Thread-compatible; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/dagps/placement.h"
#include "policy/dagps/plan_input.h"
#include "policy/dagps/troublesome.h"

namespace weft::policy::dagps {

struct BuildOptions {
  double delta = 0.2;           // threshold step for l and f (Fig. 6); see BENCHMARKS.md
  uint32_t max_candidates = 0;  // per part; 0 = every distinct T
  bool split_partitions = true; // section 4.4
};

struct Schedule {
  std::vector<uint64_t> offset;   // per stage, first task's index
  std::vector<TimeUs> start;      // per task, planned start; the plan begins at 0
  std::vector<uint32_t> machine;  // per task, planned machine (index into PlanInput::machines)
  std::vector<double> pri_score;  // per task, in (0, 1]; earlier start, higher score
  TimeUs makespan = 0;
  // How the plan was found, per part (one when partitions are not split).
  struct Part {
    std::vector<uint32_t> stages;  // of the input, in topological order
    std::vector<uint8_t> subsets;  // chosen division, per stage of `stages` (Subset)
    std::string order;             // "TOCP", "TOPC", "TCOP", "TPOC" or "T"
    uint32_t candidates = 0;       // distinct T sets tried
    TimeUs makespan = 0;
  };
  std::vector<Part> parts;
  uint64_t placements = 0;  // tasks placed while searching (work done)
};

// OrderResult: one subset order tried for one division.
struct OrderResult {
  std::string order;
  PlanState state;
};

// TrySubsetOrders places `division` (one Subset per stage) in the four
// orders, each distinct sequence of placements once (with O, P or C empty
// some orders coincide: the first name is kept); when only T is non-empty,
// the single result "T". Fails when a
// subset cannot be placed (a task fits no machine).
absl::StatusOr<std::vector<OrderResult>> TrySubsetOrders(const PlanInput& input,
                                                         const std::vector<uint8_t>& division);

// BuildSchedule plans the whole DAG. Fails (FailedPrecondition) when some
// task fits no machine of the input, or the input has a cycle.
absl::StatusOr<Schedule> BuildSchedule(const PlanInput& input, const BuildOptions& options = {});

// CheckSchedule: every task planned, barrier dependencies respected and no
// machine over capacity at any time (re-derived from the schedule alone).
absl::Status CheckSchedule(const PlanInput& input, const Schedule& schedule);

// FormatSchedule renders the plan for a person: one line per part (its
// stages by subset, the order and makespan), then the first `max_tasks`
// tasks by planned start: stage.index, machine, start, end, priScore.
std::string FormatSchedule(const PlanInput& input, const Schedule& schedule, size_t max_tasks = 50);

}  // namespace weft::policy::dagps
