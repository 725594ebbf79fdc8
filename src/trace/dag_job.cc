#include "trace/dag_job.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace weft {

std::string_view DagProblemReason(DagProblem problem) {
  switch (problem) {
    case DagProblem::kUnknownChild:
      return kSkipUnknownChild;
    case DagProblem::kDuplicateStage:
      return kSkipDuplicateStage;
    case DagProblem::kCycle:
      return kSkipCycle;
  }
  return kSkipCycle;
}

std::variant<nlohmann::json, DagProblem> DagStages(const std::vector<DagStage>& stages) {
  std::unordered_map<std::string, size_t> index;
  for (size_t s = 0; s < stages.size(); ++s) {
    if (!index.emplace(stages[s].id, s).second) return DagProblem::kDuplicateStage;
  }
  std::vector<std::vector<size_t>> parents(stages.size()), children(stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    for (const std::string& c : stages[s].children) {
      const auto it = index.find(c);
      if (it == index.end()) return DagProblem::kUnknownChild;
      if (it->second == s) return DagProblem::kCycle;
      if (std::find(parents[it->second].begin(), parents[it->second].end(), s) != parents[it->second].end()) continue;
      parents[it->second].push_back(s);
      children[s].push_back(it->second);
    }
  }
  // Kahn's algorithm, taking the ready stage given first.
  std::vector<size_t> waiting(stages.size());
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t s = 0; s < stages.size(); ++s) {
    waiting[s] = parents[s].size();
    if (waiting[s] == 0) ready.push(s);
  }
  nlohmann::json out = nlohmann::json::array();
  while (!ready.empty()) {
    const size_t s = ready.top();
    ready.pop();
    nlohmann::json stage = stages[s].stage;
    stage["name"] = stages[s].id;
    if (!parents[s].empty()) {
      nlohmann::json after = nlohmann::json::array();
      std::vector<size_t> sorted = parents[s];
      std::sort(sorted.begin(), sorted.end());
      for (size_t p : sorted) after.push_back(stages[p].id);
      stage["after"] = std::move(after);
    }
    out.push_back(std::move(stage));
    for (size_t c : children[s]) {
      if (--waiting[c] == 0) ready.push(c);
    }
  }
  if (out.size() != stages.size()) return DagProblem::kCycle;
  return out;
}

absl::Status EmitDagJob(TraceEmitter& out, nlohmann::json job, const std::vector<DagStage>& stages, double arrival_s) {
  auto built = DagStages(stages);
  if (const DagProblem* problem = std::get_if<DagProblem>(&built)) {
    out.report().Skip(DagProblemReason(*problem), 1, job["name"].get<std::string>());
    return absl::OkStatus();
  }
  job["stages"] = std::move(std::get<nlohmann::json>(built));
  return out.Job(std::move(job), arrival_s);
}

}  // namespace weft
