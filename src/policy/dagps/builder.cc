#include "policy/dagps/builder.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "fmt/format.h"

namespace weft::policy::dagps {

namespace {

std::vector<uint8_t> Mask(const std::vector<uint8_t>& division, Subset which) {
  std::vector<uint8_t> mask(division.size());
  for (size_t s = 0; s < division.size(); ++s) mask[s] = division[s] == which;
  return mask;
}

// Step places one subset: both ways (PlaceTasks) or in one direction.
enum class Way { kBest, kForward, kBackward };

absl::Status Step(const PlanInput& input, const std::vector<uint8_t>& mask, Way way, PlanState& state) {
  if (std::find(mask.begin(), mask.end(), 1) == mask.end()) return absl::OkStatus();
  if (way == Way::kBest) return PlaceBest(input, mask, state);
  return PlaceSubset(input, mask, way == Way::kForward ? Direction::kForward : Direction::kBackward, state);
}

}  // namespace

absl::StatusOr<std::vector<OrderResult>> TrySubsetOrders(const PlanInput& input,
                                                         const std::vector<uint8_t>& division) {
  const std::vector<uint8_t> t = Mask(division, kT);
  const std::vector<uint8_t> o = Mask(division, kO);
  const std::vector<uint8_t> p = Mask(division, kP);
  const std::vector<uint8_t> c = Mask(division, kC);
  PlanState base(input);
  if (absl::Status s = Step(input, t, Way::kBest, base); !s.ok()) return s;
  std::vector<OrderResult> out;
  const bool rest = std::find(division.begin(), division.end(), kO) != division.end() ||
                    std::find(division.begin(), division.end(), kP) != division.end() ||
                    std::find(division.begin(), division.end(), kC) != division.end();
  if (!rest) {
    out.push_back({"T", std::move(base)});
    return out;
  }
  // O placed both ways is shared by TOCP and TOPC.
  const bool has_o = std::find(o.begin(), o.end(), 1) != o.end();
  PlanState with_o = base;
  if (has_o) {
    if (absl::Status s = Step(input, o, Way::kBest, with_o); !s.ok()) return s;
  }
  struct Plan {
    const char* name;
    bool from_o;  // starts from T and PlaceTasks(O)
    std::vector<std::pair<const std::vector<uint8_t>*, Way>> steps;
  };
  const Plan plans[] = {
      {"TOCP", true, {{&c, Way::kForward}, {&p, Way::kBackward}}},
      {"TOPC", true, {{&p, Way::kBackward}, {&c, Way::kForward}}},
      {"TCOP", false, {{&c, Way::kForward}, {&o, Way::kBackward}, {&p, Way::kBackward}}},
      {"TPOC", false, {{&p, Way::kBackward}, {&o, Way::kForward}, {&c, Way::kForward}}},
  };
  // When a subset is empty some orders are the same sequence of placements
  // (e.g. without O, TCOP is TOCP): each distinct sequence is placed once.
  std::vector<std::string> seen;
  for (const Plan& plan : plans) {
    std::string key = plan.from_o && has_o ? "Ob" : "";
    for (const auto& [mask, way] : plan.steps) {
      if (std::find(mask->begin(), mask->end(), 1) == mask->end()) continue;
      key += fmt::format("{}{}", mask == &o ? 'O' : mask == &p ? 'P' : 'C', way == Way::kForward ? 'f' : 'b');
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    PlanState state = plan.from_o ? with_o : base;
    for (const auto& [mask, way] : plan.steps) {
      if (absl::Status s = Step(input, *mask, way, state); !s.ok()) return s;
    }
    out.push_back({plan.name, std::move(state)});
  }
  return out;
}

namespace {

// Parts of the DAG split at bridge stages, each in topological order.
std::vector<std::vector<uint32_t>> SplitParts(const PlanInput& input, const Reachability& reach, bool split) {
  std::vector<std::vector<uint32_t>> parts(1);
  for (uint32_t s : input.topo_order) {
    if (split && reach.Bridge(s)) {
      if (!parts.back().empty()) parts.emplace_back();
      parts.back().push_back(s);
      parts.emplace_back();
    } else {
      parts.back().push_back(s);
    }
  }
  if (parts.back().empty()) parts.pop_back();
  return parts;
}

// SubInput: the stages of one part, renumbered 0..k-1 in part order.
PlanInput SubInput(const PlanInput& input, const std::vector<uint32_t>& stages) {
  std::vector<int64_t> local(input.stages.size(), -1);
  for (size_t i = 0; i < stages.size(); ++i) local[stages[i]] = static_cast<int64_t>(i);
  PlanInput sub;
  sub.machines = input.machines;
  sub.stages.resize(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    const PlanStage& st = input.stages[stages[i]];
    sub.stages[i].demand = st.demand;
    sub.stages[i].durations = st.durations;
    for (uint32_t p : st.parents) {
      if (local[p] >= 0) sub.stages[i].parents.push_back(static_cast<uint32_t>(local[p]));
    }
    for (uint32_t c : st.children) {
      if (local[c] >= 0) sub.stages[i].children.push_back(static_cast<uint32_t>(local[c]));
    }
    sub.topo_order.push_back(static_cast<uint32_t>(i));
  }
  return sub;
}

struct PartPlan {
  PlanState state;
  std::vector<uint8_t> division;
  std::string order;
  uint32_t candidates = 0;
  uint64_t placements = 0;
};

absl::StatusOr<PartPlan> BuildPart(const PlanInput& sub, const BuildOptions& options) {
  const Reachability reach(sub);
  const std::vector<std::vector<uint8_t>> divisions =
      CandidateDivisions(sub, reach, options.delta, options.max_candidates);
  std::optional<PartPlan> best;
  uint64_t work = 0;
  for (const std::vector<uint8_t>& division : divisions) {
    absl::StatusOr<std::vector<OrderResult>> tried = TrySubsetOrders(sub, division);
    if (!tried.ok()) return tried.status();
    for (OrderResult& r : *tried) {
      work += r.state.placements;
      if (!best || r.state.makespan() < best->state.makespan()) {
        best.emplace(PartPlan{std::move(r.state), division, r.order});
      }
    }
  }
  if (!best) return absl::FailedPreconditionError("dagps: no candidate division");
  best->candidates = static_cast<uint32_t>(divisions.size());
  best->placements = work;
  return std::move(*best);
}

}  // namespace

absl::StatusOr<Schedule> BuildSchedule(const PlanInput& input, const BuildOptions& options) {
  if (input.topo_order.size() != input.stages.size()) return absl::FailedPreconditionError("dagps: no topological order");
  Schedule out;
  out.offset = input.stage_offsets();
  const uint64_t n = input.num_tasks();
  out.start.assign(n, 0);
  out.machine.assign(n, 0);
  out.pri_score.assign(n, 0);
  if (input.stages.empty()) return out;
  const Reachability reach(input);
  TimeUs cursor = 0;
  for (const std::vector<uint32_t>& stages : SplitParts(input, reach, options.split_partitions)) {
    const PlanInput sub = SubInput(input, stages);
    absl::StatusOr<PartPlan> plan = BuildPart(sub, options);
    if (!plan.ok()) return plan.status();
    const PlanState& st = plan->state;
    const TimeUs shift = cursor - st.space.min_start();
    for (size_t i = 0; i < stages.size(); ++i) {
      for (uint32_t k = 0; k < sub.stages[i].num_tasks(); ++k) {
        const uint64_t from = st.offset[i] + k;
        const uint64_t to = out.offset[stages[i]] + k;
        out.start[to] = st.start[from] + shift;
        out.machine[to] = st.machine[from];
      }
    }
    cursor += st.makespan();
    out.parts.push_back({stages, plan->division, plan->order, plan->candidates, st.makespan()});
    out.placements += plan->placements;
  }
  out.makespan = cursor;
  // OrderTasks: rank by planned start (ties by task index).
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), uint64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return out.start[a] < out.start[b]; });
  for (uint64_t rank = 0; rank < n; ++rank) {
    out.pri_score[order[rank]] = 1.0 - static_cast<double>(rank) / static_cast<double>(n);
  }
  return out;
}

absl::Status CheckSchedule(const PlanInput& input, const Schedule& schedule) {
  PlanState state(input);
  for (uint32_t s = 0; s < input.stages.size(); ++s) {
    const PlanStage& st = input.stages[s];
    for (uint32_t i = 0; i < st.num_tasks(); ++i) {
      const uint64_t t = schedule.offset[s] + i;
      if (schedule.machine[t] >= input.machines.size()) return absl::FailedPreconditionError("no such machine");
      state.space.Place(schedule.machine[t], schedule.start[t], st.durations[i], st.demand);
      state.start[t] = schedule.start[t];
    }
  }
  return CheckPlan(input, state);
}

std::string FormatSchedule(const PlanInput& input, const Schedule& schedule, size_t max_tasks) {
  std::string out = fmt::format("plan: {} stages, {} tasks, {} machines, makespan {:.3f} s, {} parts\n",
                                input.stages.size(), input.num_tasks(), input.machines.size(),
                                static_cast<double>(schedule.makespan) / kUsPerSecond, schedule.parts.size());
  static constexpr const char* kNames[] = {"T", "O", "P", "C"};
  for (size_t k = 0; k < schedule.parts.size(); ++k) {
    const Schedule::Part& part = schedule.parts[k];
    out += fmt::format("part {}: order {}, {} candidates, makespan {:.3f} s;", k, part.order, part.candidates,
                       static_cast<double>(part.makespan) / kUsPerSecond);
    for (int which = kT; which <= kC; ++which) {
      out += fmt::format(" {}={{", kNames[which]);
      bool first = true;
      for (size_t i = 0; i < part.stages.size(); ++i) {
        if (part.subsets[i] != which) continue;
        out += fmt::format("{}{}", first ? "" : ",", part.stages[i]);
        first = false;
      }
      out += "}";
    }
    out += "\n";
  }
  std::vector<std::pair<uint32_t, uint32_t>> tasks;  // (stage, index)
  for (uint32_t s = 0; s < input.stages.size(); ++s) {
    for (uint32_t i = 0; i < input.stages[s].num_tasks(); ++i) tasks.emplace_back(s, i);
  }
  std::stable_sort(tasks.begin(), tasks.end(), [&](const auto& a, const auto& b) {
    return schedule.start[schedule.offset[a.first] + a.second] < schedule.start[schedule.offset[b.first] + b.second];
  });
  out += "task,machine,start_s,end_s,pri_score\n";
  for (size_t k = 0; k < tasks.size() && k < max_tasks; ++k) {
    const auto [s, i] = tasks[k];
    const uint64_t t = schedule.offset[s] + i;
    out += fmt::format("{}.{},{},{:.3f},{:.3f},{:.4f}\n", s, i, schedule.machine[t],
                       static_cast<double>(schedule.start[t]) / kUsPerSecond,
                       static_cast<double>(schedule.start[t] + input.stages[s].durations[i]) / kUsPerSecond,
                       schedule.pri_score[t]);
  }
  return out;
}

}  // namespace weft::policy::dagps
