#include "report/run_labels.h"

#include <map>
#include <set>

namespace weft::report {
namespace {

using nlohmann::json;

std::string Text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::vector<RunLabel> ParamLabels(const std::vector<const json*>& summaries, const std::vector<std::string>& workloads) {
  // The values each parameter, the seed and the workload take over all runs.
  std::map<std::string, std::set<std::string>> param_values;
  std::set<std::string> seeds, workload_names(workloads.begin(), workloads.end());
  for (const json* s : summaries) {
    seeds.insert(Text(s->value("seed", json())));
    const json params = s->value("params", json::object());
    if (!params.is_object()) continue;
    for (const auto& [k, v] : params.items()) param_values[k].insert(Text(v));
  }
  std::vector<RunLabel> labels;
  for (size_t i = 0; i < summaries.size(); ++i) {
    const json& s = *summaries[i];
    std::string config;
    if (workload_names.size() > 1) config = workloads[i] + " ";
    config += s.value("policy", std::string("?"));
    const json params = s.value("params", json::object());
    if (params.is_object()) {
      for (const auto& [k, v] : params.items()) {
        if (param_values[k].size() > 1) config += " " + k + "=" + Text(v);
      }
    }
    std::string name = config;
    if (seeds.size() > 1) name += " seed " + Text(s.value("seed", json()));
    labels.push_back({name, config});
  }
  return labels;
}

}  // namespace weft::report
