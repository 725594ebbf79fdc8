#include "policy/common/ready_pool.h"

#include <vector>

namespace weft::policy {

void ReadyPool::Add(const TaskRange& range, const OrderKey& key) {
  if (range.begin >= range.end) return;
  const GroupId g{range.job, range.stage};
  auto [it, inserted] = groups_.try_emplace(g.Packed());
  Group& group = it->second;
  if (inserted) {
    group.key = key;
    ordered_.insert({key, g});
  }
  // Keep ranges sorted by begin; retried tasks may come back out of order.
  auto pos = group.ranges.end();
  while (pos != group.ranges.begin() && std::prev(pos)->first > range.begin) --pos;
  if (pos != group.ranges.begin() && std::prev(pos)->second == range.begin) {
    std::prev(pos)->second = range.end;
  } else {
    group.ranges.insert(pos, {range.begin, range.end});
  }
  group.count += range.size();
  total_ += range.size();
}

uint64_t ReadyPool::count(const GroupId& g) const {
  auto it = groups_.find(g.Packed());
  return it == groups_.end() ? 0 : it->second.count;
}

TaskRef ReadyPool::Front(const GroupId& g) const {
  const Group& group = groups_.at(g.Packed());
  return TaskRef{g.job, g.stage, group.ranges.front().first};
}

void ReadyPool::Pop(const GroupId& g) {
  auto it = groups_.find(g.Packed());
  Group& group = it->second;
  auto& front = group.ranges.front();
  if (++front.first == front.second) group.ranges.pop_front();
  --group.count;
  --total_;
  if (group.count == 0) Erase(g, group);
}

bool ReadyPool::Remove(const TaskRef& task) {
  const GroupId g{task.job, task.stage};
  auto it = groups_.find(g.Packed());
  if (it == groups_.end()) return false;
  Group& group = it->second;
  for (auto r = group.ranges.begin(); r != group.ranges.end(); ++r) {
    if (task.index < r->first || task.index >= r->second) continue;
    if (task.index == r->first) {
      ++r->first;
    } else if (task.index + 1 == r->second) {
      --r->second;
    } else {
      const uint32_t end = r->second;
      r->second = task.index;
      group.ranges.insert(std::next(r), {task.index + 1, end});
    }
    // Re-find: the insert above may have invalidated r.
    for (auto e = group.ranges.begin(); e != group.ranges.end();) {
      e = e->first == e->second ? group.ranges.erase(e) : std::next(e);
    }
    --group.count;
    --total_;
    if (group.count == 0) Erase(g, group);
    return true;
  }
  return false;
}

void ReadyPool::RemoveJob(JobId job) {
  std::vector<GroupId> doomed;
  for (const auto& [key, g] : ordered_) {
    if (g.job == job) doomed.push_back(g);
  }
  for (const GroupId& g : doomed) {
    Group& group = groups_.at(g.Packed());
    total_ -= group.count;
    Erase(g, group);
  }
}

void ReadyPool::Rekey(const GroupId& g, const OrderKey& key) {
  auto it = groups_.find(g.Packed());
  if (it == groups_.end() || it->second.key == key) return;
  ordered_.erase({it->second.key, g});
  it->second.key = key;
  ordered_.insert({key, g});
}

const std::deque<std::pair<uint32_t, uint32_t>>* ReadyPool::ranges(const GroupId& g) const {
  auto it = groups_.find(g.Packed());
  return it == groups_.end() ? nullptr : &it->second.ranges;
}

void ReadyPool::Erase(const GroupId& g, Group& group) {
  ordered_.erase({group.key, g});
  groups_.erase(g.Packed());
}

}  // namespace weft::policy
