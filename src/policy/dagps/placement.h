// File: policy/dagps/placement.h
//
// Placing a subset of a job's stages onto a partially filled resource-time
// space, forwards or backwards (001_a7e14c78d79bdb00.txt, section 4.2 and
// Fig. 7: PlaceTasksF, PlaceTasksB, PlaceTasks).
//   - Forward (PlaceTasksF): repeatedly take, among the subset's tasks whose
//     parents inside the subset are all placed, the one with the longest
//     runtime, and put it at the earliest time >= the end of its latest
//     finishing placed parent (any subset) where its demand fits on some
//     machine. A task with no placed parent may start at the space's left
//     edge.
//   - Backward (PlaceTasksB): the mirror image: children first, each task
//     ending at the latest time <= the start of its earliest placed child (the
//     space's right edge when none is placed).
//   - PlaceTasks: both, keeping the more compact result.
// Parents outside the subset that are not yet placed are ignored by a forward
// pass: the subset orders of section 4.3 guarantee that they will be placed
// later by a backward pass, which puts them before this task (and mirror-wise
// for backward passes). CheckPlan verifies the outcome.
// Stages are the unit of readiness (a stage is ready when its parent stages in
// the subset are fully placed; edges are barriers, see plan_input.h), tasks
// the unit of placement.
// Not thread-safe; plain functions over a PlanState value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "policy/dagps/plan_input.h"
#include "policy/dagps/space.h"

namespace weft::policy::dagps {

inline constexpr TimeUs kUnplaced = std::numeric_limits<TimeUs>::min();

// PlanState: a space and where each task of the input is in it.
struct PlanState {
  explicit PlanState(const PlanInput& input);

  ResourceTimeSpace space;
  std::vector<uint64_t> offset;   // per stage, first task's index (size stages + 1)
  std::vector<TimeUs> start;      // per task, kUnplaced until placed
  std::vector<uint32_t> machine;  // per task
  std::vector<uint32_t> placed;   // per stage, tasks placed
  std::vector<TimeUs> stage_min_start;
  std::vector<TimeUs> stage_max_end;
  uint64_t placements = 0;        // tasks placed (work counter for benchmarks)

  bool complete(uint32_t stage, const PlanInput& input) const {
    return placed[stage] == input.stages[stage].num_tasks();
  }
  TimeUs makespan() const { return space.makespan(); }
};

enum class Direction { kForward, kBackward };

// PlaceSubset places every task of the stages with in_subset[s] != 0.
// Fails (FailedPrecondition) when a task fits no machine, or when the subset
// cannot be ordered (a dependency outside the allowed orders: a bug).
absl::Status PlaceSubset(const PlanInput& input, std::span<const uint8_t> in_subset, Direction direction,
                         PlanState& state);

// PlaceBest (PlaceTasks): forward and backward from `state`, the more
// compact one (forward on ties).
absl::Status PlaceBest(const PlanInput& input, std::span<const uint8_t> in_subset, PlanState& state);

// CheckPlan: every task placed, no task starting before a parent stage's task
// ends, capacities respected. OK or FailedPrecondition naming the problem.
absl::Status CheckPlan(const PlanInput& input, const PlanState& state);

}  // namespace weft::policy::dagps
