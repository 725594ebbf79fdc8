#include "policy/common/ready_pool.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace weft::policy {

OrderKey FifoKey(const JobView& job, uint32_t stage) {
  return {-static_cast<int64_t>(job.priority()), job.arrival(),
          (static_cast<int64_t>(job.id().value()) << 24) | stage, 0};
}

void ReadyPool::Add(const TaskRange& range, const OrderKey& key) {
  if (range.begin >= range.end) return;
  const GroupId g{range.job, range.stage};
  auto [it, inserted] = groups_.try_emplace(g.Packed());
  Group& group = it->second;
  if (inserted) {
    group.key = key;
    ordered_.insert({key, g});
  }
  // Keep ranges sorted by begin and disjoint; retried tasks may come back out
  // of order. Appends (the common case) take the fast path.
  auto& ranges = group.ranges;
  auto pos = ranges.end();
  if (!ranges.empty() && ranges.back().first > range.begin) {
    pos = std::upper_bound(ranges.begin(), ranges.end(), range.begin,
                           [](uint32_t i, const std::pair<uint32_t, uint32_t>& r) { return i < r.first; });
  }
  // Merge with the range before and the range after when they touch, so a
  // task that comes back between two ranges makes them one again.
  const bool joins_prev = pos != ranges.begin() && std::prev(pos)->second == range.begin;
  const bool joins_next = pos != ranges.end() && pos->first == range.end;
  if (joins_prev && joins_next) {
    std::prev(pos)->second = pos->second;
    ranges.erase(pos);
  } else if (joins_prev) {
    std::prev(pos)->second = range.end;
  } else if (joins_next) {
    pos->first = range.begin;
  } else {
    ranges.insert(pos, {range.begin, range.end});
  }
  group.count += range.size();
  total_ += range.size();
}

uint64_t ReadyPool::count(const GroupId& g) const {
  auto it = groups_.find(g.Packed());
  return it == groups_.end() ? 0 : it->second.count;
}

const OrderKey* ReadyPool::key(const GroupId& g) const {
  auto it = groups_.find(g.Packed());
  return it == groups_.end() ? nullptr : &it->second.key;
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
  auto& ranges = group.ranges;
  // The last range that begins at or before the task (ranges are sorted by
  // begin and disjoint): O(log ranges) however fragmented the group is.
  auto r = std::upper_bound(ranges.begin(), ranges.end(), task.index,
                            [](uint32_t i, const std::pair<uint32_t, uint32_t>& range) { return i < range.first; });
  if (r == ranges.begin()) return false;
  --r;
  if (task.index >= r->second) return false;
  if (task.index == r->first) {
    if (++r->first == r->second) ranges.erase(r);
  } else if (task.index + 1 == r->second) {
    --r->second;
  } else {
    const uint32_t end = r->second;
    r->second = task.index;
    ranges.insert(std::next(r), {task.index + 1, end});
  }
  --group.count;
  --total_;
  if (group.count == 0) Erase(g, group);
  return true;
}

void ReadyPool::RemoveJob(JobId job, uint32_t num_stages) {
  for (uint32_t stage = 0; stage < num_stages; ++stage) {
    const GroupId g{job, stage};
    const auto it = groups_.find(g.Packed());
    if (it == groups_.end()) continue;
    total_ -= it->second.count;
    Erase(g, it->second);
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
