#include "policy/dagps/placement.h"

#include <algorithm>
#include <queue>
#include <tuple>

#include "fmt/format.h"

namespace weft::policy::dagps {

PlanState::PlanState(const PlanInput& input)
    : space(input.machines),
      offset(input.stage_offsets()),
      start(input.num_tasks(), kUnplaced),
      machine(input.num_tasks(), 0),
      placed(input.stages.size(), 0),
      stage_min_start(input.stages.size(), 0),
      stage_max_end(input.stages.size(), 0) {}

namespace {

// A ready task: longest runtime first, then lowest stage and index.
struct Ready {
  TimeUs duration;
  uint32_t stage;
  uint32_t index;
  bool operator<(const Ready& o) const {
    return std::tie(duration, o.stage, o.index) < std::tie(o.duration, stage, index);
  }
};

}  // namespace

absl::Status PlaceSubset(const PlanInput& input, std::span<const uint8_t> in_subset, Direction direction,
                         PlanState& state) {
  const bool forward = direction == Direction::kForward;
  const size_t n = input.stages.size();
  // Per stage of the subset: how many of its predecessors (parents forward,
  // children backward) inside the subset are not fully placed yet; and the
  // time bound its tasks must respect.
  std::vector<uint32_t> waiting(n, 0);
  std::vector<TimeUs> bound(n, 0);
  std::priority_queue<Ready> ready;
  uint64_t to_place = 0;
  const TimeUs edge = forward ? state.space.min_start() : state.space.max_end();

  auto release = [&](uint32_t s) {
    // Bound from every placed predecessor, whichever subset it is in.
    const std::vector<uint32_t>& preds = forward ? input.stages[s].parents : input.stages[s].children;
    bool any = false;
    TimeUs b = 0;
    for (uint32_t p : preds) {
      if (!state.complete(p, input)) continue;
      const TimeUs t = forward ? state.stage_max_end[p] : state.stage_min_start[p];
      b = !any ? t : (forward ? std::max(b, t) : std::min(b, t));
      any = true;
    }
    bound[s] = any ? b : edge;
    const PlanStage& st = input.stages[s];
    for (uint32_t i = 0; i < st.num_tasks(); ++i) {
      if (state.start[state.offset[s] + i] == kUnplaced) ready.push(Ready{st.durations[i], s, i});
    }
  };

  for (uint32_t s = 0; s < n; ++s) {
    if (!in_subset[s]) continue;
    to_place += input.stages[s].num_tasks() - state.placed[s];
    const std::vector<uint32_t>& preds = forward ? input.stages[s].parents : input.stages[s].children;
    for (uint32_t p : preds) {
      if (in_subset[p] && !state.complete(p, input)) ++waiting[s];
    }
  }
  for (uint32_t s = 0; s < n; ++s) {
    if (in_subset[s] && waiting[s] == 0 && !state.complete(s, input)) release(s);
  }
  // Stages of the subset that are empty (0 tasks) complete at once.
  uint32_t hint = 0;
  while (to_place > 0) {
    if (ready.empty()) return absl::FailedPreconditionError("dagps: the subset's dependencies cannot be ordered");
    const Ready r = ready.top();
    ready.pop();
    const PlanStage& st = input.stages[r.stage];
    const auto slot = forward ? state.space.EarliestFit(st.demand, r.duration, bound[r.stage], hint)
                              : state.space.LatestFit(st.demand, r.duration, bound[r.stage], hint);
    if (!slot) return absl::FailedPreconditionError(fmt::format("dagps: stage {} fits no machine", r.stage));
    hint = slot->machine;
    state.space.Place(slot->machine, slot->start, r.duration, st.demand);
    const uint64_t task = state.offset[r.stage] + r.index;
    state.start[task] = slot->start;
    state.machine[task] = slot->machine;
    ++state.placements;
    --to_place;
    const TimeUs end = slot->start + r.duration;
    if (state.placed[r.stage] == 0) {
      state.stage_min_start[r.stage] = slot->start;
      state.stage_max_end[r.stage] = end;
    } else {
      state.stage_min_start[r.stage] = std::min(state.stage_min_start[r.stage], slot->start);
      state.stage_max_end[r.stage] = std::max(state.stage_max_end[r.stage], end);
    }
    if (++state.placed[r.stage] < st.num_tasks()) continue;
    const std::vector<uint32_t>& succs = forward ? st.children : st.parents;
    for (uint32_t c : succs) {
      if (in_subset[c] && --waiting[c] == 0) release(c);
    }
  }
  return absl::OkStatus();
}

absl::Status PlaceBest(const PlanInput& input, std::span<const uint8_t> in_subset, PlanState& state) {
  PlanState backward = state;
  const uint64_t before = state.placements;
  const absl::Status f = PlaceSubset(input, in_subset, Direction::kForward, state);
  const absl::Status b = PlaceSubset(input, in_subset, Direction::kBackward, backward);
  if (!f.ok() && !b.ok()) return f;
  // Count both passes' work, whichever is kept.
  const uint64_t work = (state.placements - before) + (backward.placements - before);
  if (!f.ok() || (b.ok() && backward.makespan() < state.makespan())) state = std::move(backward);
  state.placements = before + work;
  return absl::OkStatus();
}

absl::Status CheckPlan(const PlanInput& input, const PlanState& state) {
  // Edges are barriers: a stage's first start must not precede any parent
  // stage's last end.
  const size_t n = input.stages.size();
  std::vector<TimeUs> first(n, std::numeric_limits<TimeUs>::max());
  std::vector<TimeUs> last(n, std::numeric_limits<TimeUs>::min());
  for (uint32_t s = 0; s < n; ++s) {
    const PlanStage& st = input.stages[s];
    for (uint32_t i = 0; i < st.num_tasks(); ++i) {
      const TimeUs start = state.start[state.offset[s] + i];
      if (start == kUnplaced) return absl::FailedPreconditionError(fmt::format("task {}.{} is not placed", s, i));
      first[s] = std::min(first[s], start);
      last[s] = std::max(last[s], start + st.durations[i]);
    }
  }
  for (uint32_t s = 0; s < n; ++s) {
    if (input.stages[s].num_tasks() == 0) continue;
    for (uint32_t p : input.stages[s].parents) {
      if (input.stages[p].num_tasks() > 0 && last[p] > first[s]) {
        return absl::FailedPreconditionError(
            fmt::format("stage {} starts at {} before its parent stage {} ends at {}", s, first[s], p, last[p]));
      }
    }
  }
  if (!state.space.WithinCapacity()) return absl::FailedPreconditionError("a machine's capacity is exceeded");
  return absl::OkStatus();
}

}  // namespace weft::policy::dagps
