#include "policy/common/locality_wait.h"

#include <algorithm>

namespace weft::policy {

LocalityLevel LevelOf(std::span<const MachineId> prefs, MachineId machine, const ClusterState& cluster) {
  if (prefs.empty()) return LocalityLevel::kNode;
  LocalityLevel level = LocalityLevel::kAny;
  const RackId rack = cluster.rack(machine);
  for (MachineId p : prefs) {
    if (p == machine) return LocalityLevel::kNode;
    if (cluster.rack(p) == rack) level = LocalityLevel::kRack;
  }
  return level;
}

LocalityLevel LocalityWait::Allowed(TimeUs now, TimeUs node_wait, TimeUs rack_wait) const {
  const TimeUs waited = waiting ? now - since : 0;
  if (level == LocalityLevel::kNode) {
    if (waited >= node_wait + rack_wait) return LocalityLevel::kAny;
    return waited >= node_wait ? LocalityLevel::kRack : LocalityLevel::kNode;
  }
  if (level == LocalityLevel::kRack) return waited >= rack_wait ? LocalityLevel::kAny : LocalityLevel::kRack;
  return LocalityLevel::kAny;
}

bool LocalityWait::Start(TimeUs now) {
  if (waiting) return false;
  waiting = true;
  since = now;
  ++episode;
  return true;
}

std::vector<TimeUs> LocalityWait::Deadlines(TimeUs node_wait, TimeUs rack_wait) const {
  if (level == LocalityLevel::kNode) return {node_wait, node_wait + rack_wait};
  if (level == LocalityLevel::kRack) return {rack_wait};
  return {};
}

bool InReadyPool(const ReadyPool& pool, const GroupId& g, uint32_t index) {
  const auto* ranges = pool.ranges(g);
  if (ranges == nullptr) return false;
  // Ranges are sorted by begin: find the last one that starts at or before index.
  auto it = std::upper_bound(ranges->begin(), ranges->end(), index,
                             [](uint32_t i, const std::pair<uint32_t, uint32_t>& r) { return i < r.first; });
  return it != ranges->begin() && index < std::prev(it)->second;
}

bool LocalityIndex::StageHasPrefs(const GroupId& g, const JobView& job) {
  auto [it, inserted] = stage_has_prefs_.try_emplace(g.Packed(), false);
  if (inserted) {
    for (uint32_t i = 0; i < job.stage_tasks(g.stage) && !it->second; ++i) {
      it->second = !job.preferences(TaskRef{g.job, g.stage, i}).empty();
    }
  }
  return it->second;
}

bool LocalityIndex::Index(const TaskRange& range, const JobView& job, const ClusterState& cluster) {
  const GroupId g{range.job, range.stage};
  if (!StageHasPrefs(g, job)) return false;
  GroupIndex& gi = groups_[g.Packed()];
  std::vector<uint32_t> racks;
  for (uint32_t i = range.begin; i < range.end; ++i) {
    const auto prefs = job.preferences(TaskRef{range.job, range.stage, i});
    if (prefs.empty()) {
      gi.no_prefs.tasks.push_back(i);
      continue;
    }
    racks.clear();
    for (MachineId m : prefs) {
      gi.by_machine[m.value()].tasks.push_back(i);
      racks.push_back(cluster.rack(m).value());
    }
    std::sort(racks.begin(), racks.end());
    racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
    for (uint32_t r : racks) gi.by_rack[r].tasks.push_back(i);
  }
  return true;
}

std::optional<TaskRef> LocalityIndex::FirstLive(TaskList& list, const GroupId& g, const ReadyPool& pool) {
  for (; list.head < list.tasks.size(); ++list.head) {
    const uint32_t i = list.tasks[list.head];
    if (InReadyPool(pool, g, i)) return TaskRef{g.job, g.stage, i};
  }
  return std::nullopt;
}

std::optional<TaskRef> LocalityIndex::NodeLocal(const GroupId& g, MachineId machine, const ReadyPool& pool) {
  auto it = groups_.find(g.Packed());
  if (it == groups_.end()) return std::nullopt;
  auto l = it->second.by_machine.find(machine.value());
  return l == it->second.by_machine.end() ? std::nullopt : FirstLive(l->second, g, pool);
}

std::optional<TaskRef> LocalityIndex::RackLocal(const GroupId& g, RackId rack, const ReadyPool& pool) {
  auto it = groups_.find(g.Packed());
  if (it == groups_.end()) return std::nullopt;
  auto l = it->second.by_rack.find(rack.value());
  return l == it->second.by_rack.end() ? std::nullopt : FirstLive(l->second, g, pool);
}

std::optional<TaskRef> LocalityIndex::WithoutPrefs(const GroupId& g, const ReadyPool& pool) {
  auto it = groups_.find(g.Packed());
  if (it == groups_.end()) return std::nullopt;
  return FirstLive(it->second.no_prefs, g, pool);
}

void LocalityIndex::EraseJob(JobId job) {
  const uint64_t first = uint64_t{job.value()} << 32;
  groups_.erase(groups_.lower_bound(first), groups_.lower_bound(first + (uint64_t{1} << 32)));
}

}  // namespace weft::policy
