// File: policy/common/ready_pool.h
//
// ReadyPool: the ready tasks a scheduler holds, grouped by (job, stage). All
// tasks of a group share a demand, so most policies rank groups, not tasks,
// and take a group's tasks in index order. Ranges are stored as intervals,
// so a 100,000-task stage costs one entry, not 100,000.
//
// Groups are kept in an order the owner defines with an OrderKey (smaller
// first; ties broken by job id then stage, never by pointer): FIFO keys on
// (priority, arrival), CP on critical-path length, BFS on depth, and so on.
// Not thread-safe; owned by one role.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "policy/job_view.h"
#include "policy/roles.h"

namespace weft::policy {

// Compared lexicographically; smaller keys are served first. Four fields, so
// that a policy's own rank can precede the whole FIFO key (FifoKey uses the
// first three) without packing two values into one field.
using OrderKey = std::array<int64_t, 4>;

// FifoKey: higher priority first, then earlier arrival, then job and stage,
// in the first three fields (the fourth is 0). Stages are below 2^24.
OrderKey FifoKey(const JobView& job, uint32_t stage);

struct GroupId {
  JobId job;
  uint32_t stage = 0;
  friend auto operator<=>(const GroupId&, const GroupId&) = default;
  uint64_t Packed() const { return (uint64_t{job.value()} << 32) | stage; }
};

class ReadyPool {
 public:
  // Add records newly ready tasks; `key` orders the group when it is new
  // (an existing group keeps its key). The range is merged with the ranges
  // it touches on either side. Precondition: none of its tasks is in the pool.
  void Add(const TaskRange& range, const OrderKey& key);

  bool empty() const { return ordered_.empty(); }
  uint64_t size() const { return total_; }
  uint64_t count(const GroupId& g) const;
  // key returns the group's order key, or nullptr if it has no ready task.
  const OrderKey* key(const GroupId& g) const;

  // Front returns the group's lowest ready task index; Pop removes it.
  // Precondition: count(g) > 0.
  TaskRef Front(const GroupId& g) const;
  void Pop(const GroupId& g);
  // Remove takes out one specific task if it is in the pool (e.g. when a
  // locality-aware policy launches out of index order); false if absent.
  // O(log ranges of the group) to find it (ranges stay sorted by begin).
  bool Remove(const TaskRef& task);
  // RemoveJob drops every group of a job of `num_stages` stages (it finished
  // or failed): O(its stages), not O(every group), so ending each of N
  // queued jobs stays linear in N (issue 20).
  void RemoveJob(JobId job, uint32_t num_stages);

  // The groups in order: a set of (key, group).
  using Ordered = std::set<std::pair<OrderKey, GroupId>>;
  const Ordered& ordered() const { return ordered_; }

  // Rekey changes a group's order key (e.g. when shares or scores change).
  void Rekey(const GroupId& g, const OrderKey& key);

  // Ranges of a group, for policies that look beyond the front task.
  const std::deque<std::pair<uint32_t, uint32_t>>* ranges(const GroupId& g) const;

 private:
  struct Group {
    OrderKey key;
    std::deque<std::pair<uint32_t, uint32_t>> ranges;  // [begin, end)
    uint64_t count = 0;
  };
  void Erase(const GroupId& g, Group& group);

  absl::flat_hash_map<uint64_t, Group> groups_;
  Ordered ordered_;
  uint64_t total_ = 0;
};

}  // namespace weft::policy
