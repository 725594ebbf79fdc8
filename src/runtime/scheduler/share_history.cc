#include "runtime/scheduler/share_history.h"

#include <algorithm>

namespace weft::runtime {

void ShareHistory::Add(double now_s, const std::map<std::string, uint64_t>& running) {
  if (!samples_.empty() && now_s < samples_.back().t + kMinGapSeconds) return;
  if (samples_.size() >= kMaxSamples) {
    // Keep the first sample and every other one after it: the history still
    // starts where it started, at half the resolution.
    size_t kept = 0;
    for (size_t i = 0; i < samples_.size(); i += 2) samples_[kept++] = std::move(samples_[i]);
    samples_.resize(kept);
  }
  Sample s;
  s.t = now_s;
  for (const auto& [user, tasks] : running) {
    if (tasks > 0) s.running.emplace(user, tasks);
  }
  samples_.push_back(std::move(s));
}

nlohmann::json ShareHistory::Json() const {
  std::map<std::string, uint64_t> total;
  for (const Sample& s : samples_) {
    for (const auto& [user, tasks] : s.running) total[user] += tasks;
  }
  std::vector<std::string> users;
  for (const auto& [user, sum] : total) users.push_back(user);
  // Biggest first; equal totals by name, so the order never depends on a hash.
  std::stable_sort(users.begin(), users.end(),
                   [&](const std::string& a, const std::string& b) { return total[a] > total[b]; });
  const bool others = users.size() > kMaxUsers;
  if (others) users.resize(kMaxUsers);
  nlohmann::json t = nlohmann::json::array();
  std::vector<nlohmann::json> rows(users.size() + (others ? 1 : 0), nlohmann::json::array());
  for (const Sample& s : samples_) {
    t.push_back(s.t);
    uint64_t named = 0;
    for (size_t u = 0; u < users.size(); ++u) {
      const auto it = s.running.find(users[u]);
      const uint64_t tasks = it == s.running.end() ? 0 : it->second;
      named += tasks;
      rows[u].push_back(tasks);
    }
    if (others) {
      uint64_t all = 0;
      for (const auto& [user, tasks] : s.running) all += tasks;
      rows.back().push_back(all - named);
    }
  }
  nlohmann::json names = nlohmann::json::array();
  for (const std::string& u : users) names.push_back(u);
  if (others) names.push_back("others");
  return {{"t", t}, {"users", names}, {"running", rows}};
}

}  // namespace weft::runtime
