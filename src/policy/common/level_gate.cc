#include "policy/common/level_gate.h"

#include <algorithm>
#include <utility>

namespace weft::policy {

void LevelGate::AddJob(const JobView& job, std::vector<uint32_t> stage_level) {
  JobLevels levels;
  uint32_t max_level = 0;
  for (uint32_t l : stage_level) max_level = std::max(max_level, l);
  levels.left.assign(max_level + 1, 0);
  levels.parked.resize(max_level + 1);
  for (uint32_t s = 0; s < stage_level.size(); ++s) levels.left[stage_level[s]] += job.stage_tasks(s);
  levels.stage_level = std::move(stage_level);
  while (levels.open < max_level && levels.left[levels.open] == 0) ++levels.open;
  jobs_[job.id().value()] = std::move(levels);
}

bool LevelGate::Admit(const TaskRange& range) {
  auto it = jobs_.find(range.job.value());
  if (it == jobs_.end()) return true;
  JobLevels& j = it->second;
  const uint32_t level = j.stage_level[range.stage];
  if (level <= j.open) return true;
  j.parked[level].push_back(range);
  return false;
}

std::vector<TaskRange> LevelGate::Finished(const TaskRef& task) {
  std::vector<TaskRange> released;
  auto it = jobs_.find(task.job.value());
  if (it == jobs_.end()) return released;
  JobLevels& j = it->second;
  const uint32_t level = j.stage_level[task.stage];
  if (j.left[level] > 0) --j.left[level];
  while (j.open + 1 < j.left.size() && j.left[j.open] == 0) {
    ++j.open;
    for (const TaskRange& r : j.parked[j.open]) released.push_back(r);
    j.parked[j.open].clear();
  }
  return released;
}

uint32_t LevelGate::OpenLevel(JobId job) const {
  auto it = jobs_.find(job.value());
  return it == jobs_.end() ? 0 : it->second.open;
}

uint32_t LevelGate::Level(JobId job, uint32_t stage) const {
  auto it = jobs_.find(job.value());
  return it == jobs_.end() ? 0 : it->second.stage_level[stage];
}

}  // namespace weft::policy
