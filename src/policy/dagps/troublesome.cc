#include "policy/dagps/troublesome.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "policy/dagps/placement.h"

namespace weft::policy::dagps {

std::vector<double> LongScores(const PlanInput& input) {
  std::vector<TimeUs> longest(input.stages.size(), 0);
  TimeUs overall = 0;
  for (size_t s = 0; s < input.stages.size(); ++s) {
    for (TimeUs d : input.stages[s].durations) longest[s] = std::max(longest[s], d);
    overall = std::max(overall, longest[s]);
  }
  std::vector<double> out(input.stages.size(), 0);
  for (size_t s = 0; s < out.size(); ++s) {
    out[s] = overall > 0 ? static_cast<double>(longest[s]) / static_cast<double>(overall) : 0;
  }
  return out;
}

double StageTWork(const PlanInput& input, uint32_t stage) {
  const PlanStage& st = input.stages[stage];
  double total_duration = 0;
  for (TimeUs d : st.durations) total_duration += static_cast<double>(d);
  double best = 0;
  for (int r = 0; r < kNumResources; ++r) {
    const Resource res = static_cast<Resource>(r);
    double capacity = 0;
    for (const Resources& m : input.machines) capacity += static_cast<double>(m.micro(res));
    if (capacity <= 0) continue;
    best = std::max(best, total_duration * static_cast<double>(st.demand.micro(res)) / capacity);
  }
  return best;
}

std::vector<double> FragScores(const PlanInput& input) {
  std::vector<double> out(input.stages.size(), 1.0);
  // Each stage alone, on an empty space: no dependencies inside the stage,
  // so a forward pass is the greedy packer.
  PlanInput alone;
  alone.machines = input.machines;
  alone.stages.resize(1);
  alone.topo_order = {0};
  const std::vector<uint8_t> only = {1};
  for (uint32_t s = 0; s < input.stages.size(); ++s) {
    if (input.stages[s].num_tasks() == 0) continue;
    alone.stages[0].demand = input.stages[s].demand;
    alone.stages[0].durations = input.stages[s].durations;
    PlanState state(alone);
    if (!PlaceSubset(alone, only, Direction::kForward, state).ok() || state.makespan() <= 0) continue;
    out[s] = std::min(1.0, StageTWork(input, s) / static_cast<double>(state.makespan()));
  }
  return out;
}

Reachability::Reachability(const PlanInput& input)
    : n_(input.stages.size()), words_((n_ + 63) / 64), anc_(n_ * words_, 0), desc_(n_ * words_, 0) {
  for (uint32_t s : input.topo_order) {
    for (uint32_t p : input.stages[s].parents) {
      anc_[s * words_ + p / 64] |= uint64_t{1} << (p % 64);
      for (size_t w = 0; w < words_; ++w) anc_[s * words_ + w] |= anc_[p * words_ + w];
    }
  }
  for (auto it = input.topo_order.rbegin(); it != input.topo_order.rend(); ++it) {
    const uint32_t s = *it;
    for (uint32_t c : input.stages[s].children) {
      desc_[s * words_ + c / 64] |= uint64_t{1} << (c % 64);
      for (size_t w = 0; w < words_; ++w) desc_[s * words_ + w] |= desc_[c * words_ + w];
    }
  }
}

bool Reachability::Bridge(uint32_t s) const {
  size_t related = 0;
  for (size_t w = 0; w < words_; ++w) {
    related += static_cast<size_t>(__builtin_popcountll(anc_[s * words_ + w] | desc_[s * words_ + w]));
  }
  return related + 1 == n_;
}

std::vector<uint8_t> Divide(const Reachability& reach, const std::vector<uint8_t>& troublesome) {
  const size_t n = troublesome.size();
  const size_t words = reach.words();
  // Union of the ancestors and of the descendants of the troublesome stages.
  std::vector<uint64_t> anc(words, 0);
  std::vector<uint64_t> desc(words, 0);
  for (uint32_t s = 0; s < n; ++s) {
    if (!troublesome[s]) continue;
    for (size_t w = 0; w < words; ++w) {
      anc[w] |= reach.ancestors(s)[w];
      desc[w] |= reach.descendants(s)[w];
    }
  }
  std::vector<uint8_t> out(n, kO);
  for (uint32_t s = 0; s < n; ++s) {
    const bool a = (anc[s / 64] >> (s % 64)) & 1;
    const bool d = (desc[s / 64] >> (s % 64)) & 1;
    // On a path between two troublesome stages: both an ancestor and a
    // descendant of T (closure).
    if (troublesome[s] || (a && d)) {
      out[s] = kT;
    } else if (a) {
      out[s] = kP;
    } else if (d) {
      out[s] = kC;
    }
  }
  return out;
}

std::vector<std::vector<uint8_t>> CandidateDivisions(const PlanInput& input, const Reachability& reach,
                                                     double delta, uint32_t max_candidates) {
  const std::vector<double> lscore = LongScores(input);
  const std::vector<double> fscore = FragScores(input);
  const int steps = std::max(1, static_cast<int>(std::lround(1.0 / delta)));
  constexpr double kSlack = 1e-9;  // so that 3 x 0.1 still reaches a score of 0.3
  std::vector<std::vector<uint8_t>> out;
  // Seen sets keyed by the bytes as strings: GCC 12 at -O3 warns (falsely,
  // -Wstringop-overread) on std::set<std::vector<uint8_t>>'s comparison.
  std::set<std::string> seen_raw;
  std::set<std::string> seen;
  std::vector<uint8_t> raw(input.stages.size());
  for (int li = 1; li <= steps; ++li) {
    const double l = li == steps ? 1.0 : li * delta;
    for (int fi = 1; fi <= steps; ++fi) {
      const double f = fi == steps ? 1.0 : fi * delta;
      bool any = false;
      for (size_t s = 0; s < raw.size(); ++s) {
        raw[s] = input.stages[s].num_tasks() > 0 && (lscore[s] >= l - kSlack || fscore[s] <= f + kSlack);
        any = any || raw[s];
      }
      if (!any || !seen_raw.insert(std::string(raw.begin(), raw.end())).second) continue;
      std::vector<uint8_t> division = Divide(reach, raw);
      if (!seen.insert(std::string(division.begin(), division.end())).second) continue;
      out.push_back(std::move(division));
      if (max_candidates > 0 && out.size() >= max_candidates) return out;
    }
  }
  return out;
}

}  // namespace weft::policy::dagps
