#include "cli/policy_traits.h"

namespace weft::cli {

std::string Clairvoyance(std::string_view knowledge) {
  if (knowledge == "clairvoyant") return "yes";
  if (knowledge == "semi-clairvoyant") return "semi";
  if (knowledge == "non-clairvoyant") return "no";
  return "?";
}

std::string OverCommits(const std::vector<std::string>& resources) {
  if (resources.empty()) return "none";
  if (resources.size() == kNumResources) return "all";
  std::string out;
  for (const std::string& r : resources) out += (out.empty() ? "" : ",") + r;
  return out;
}

std::string OverCommits(ResourceMask mask) {
  std::vector<std::string> names;
  for (int k = 0; k < kNumResources; ++k) {
    if (InMask(mask, static_cast<Resource>(k))) names.emplace_back(kResourceNames[k]);
  }
  return OverCommits(names);
}

std::string ClairvoyanceOf(const nlohmann::ordered_json& summary) {
  const auto it = summary.find("knowledge");
  return it != summary.end() && it->is_string() ? Clairvoyance(it->get<std::string>()) : "?";
}

std::string OverCommitsOf(const nlohmann::ordered_json& summary) {
  const auto it = summary.find("overbooked_resources");
  if (it == summary.end() || !it->is_array()) return "?";
  std::vector<std::string> names;
  for (const auto& r : *it) {
    if (r.is_string()) names.push_back(r.get<std::string>());
  }
  return OverCommits(names);
}

}  // namespace weft::cli
