#include "policy/dagps/matcher.h"

namespace weft::policy::dagps {

namespace {

bool AnyFits(std::span<const MatchCandidate> candidates) {
  for (const MatchCandidate& c : candidates) {
    if (c.fits) return true;
  }
  return false;
}

double Packing(const MatchCandidate& c, bool fitting_class, double remote_penalty) {
  const double base = fitting_class ? c.alignment : c.overbook;
  return c.pri_score * base * (c.remote ? remote_penalty : 1.0);
}

bool Qualifies(const MatchCandidate& c, bool fitting_class) { return fitting_class ? c.fits : c.overbook > 0; }

}  // namespace

double Eta(std::span<const MatchCandidate> candidates, double m, double remote_penalty) {
  const bool fitting = AnyFits(candidates);
  double sum_score = 0;
  double sum_srpt = 0;
  for (const MatchCandidate& c : candidates) {
    if (!Qualifies(c, fitting)) continue;
    sum_score += Packing(c, fitting, remote_penalty);
    sum_srpt += c.srpt;
  }
  // The counts of the two means cancel.
  return sum_srpt > 0 ? m * sum_score / sum_srpt : 0;
}

double PerfScore(const MatchCandidate& c, double eta, double remote_penalty) {
  return Packing(c, c.fits, remote_penalty) - eta * c.srpt;
}

std::optional<size_t> PickBest(std::span<const MatchCandidate> candidates, double eta, double remote_penalty,
                               std::optional<uint32_t> group) {
  std::optional<size_t> best;
  double best_score = 0;
  for (const bool fitting : {true, false}) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const MatchCandidate& c = candidates[i];
      if (!Qualifies(c, fitting) || (group && c.group != *group)) continue;
      const double score = Packing(c, fitting, remote_penalty) - eta * c.srpt;
      if (!best || score > best_score) {
        best = i;
        best_score = score;
      }
    }
    if (best) return best;  // lexicographic: fitting tasks first
  }
  return best;
}

void DeficitCounters::SetActive(uint32_t group, bool active, double weight) {
  auto it = groups_.find(group);
  if (!active) {
    if (it != groups_.end()) {
      total_weight_ -= it->second.weight;
      groups_.erase(it);
    }
    return;
  }
  if (it == groups_.end()) {
    groups_.emplace(group, Entry{weight, 0});
    total_weight_ += weight;
  } else if (it->second.weight != weight) {
    total_weight_ += weight - it->second.weight;
    it->second.weight = weight;
  }
}

void DeficitCounters::Charge(uint32_t group, double amount) {
  if (total_weight_ <= 0) return;
  for (auto& [g, e] : groups_) e.deficit += e.weight / total_weight_ * amount;
  auto it = groups_.find(group);
  if (it != groups_.end()) it->second.deficit -= amount;
}

std::optional<uint32_t> DeficitCounters::Neediest(double threshold) const {
  std::optional<uint32_t> best;
  double best_deficit = 0;
  for (const auto& [g, e] : groups_) {
    if (!best || e.deficit > best_deficit) {
      best = g;
      best_deficit = e.deficit;
    }
  }
  if (!best || best_deficit < threshold) return std::nullopt;
  return best;
}

double DeficitCounters::deficit(uint32_t group) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? 0 : it->second.deficit;
}

}  // namespace weft::policy::dagps
