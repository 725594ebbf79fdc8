// File: policy/common/indexed_container_pool.h
//
// IndexedContainerPool: a ContainerPool (container_pool.h) that also keeps,
// as containers are granted, lost, released and as tasks are bound to them
// and end, the three views a job manager holding hundreds of containers asks
// for on every event:
//   - the containers by free room, so "the containers where some waiting
//     task could go" costs one test per distinct free room (a handful: most
//     containers of a job are full, or empty) plus the containers returned,
//     instead of one per container held;
//   - the idle containers (no task), in id order, and those that turned
//     idle since their owner last looked;
//   - the containers by load (fewest tasks first, latest granted first among
//     equals), the order in which a job gives containers back.
// COBRA's job manager (cobra/manager.h) uses it; ContainerPool stays as it
// is for the managers that hold a few containers.
//
// Every change goes through this class, so the views cannot miss one;
// CheckViews recomputes them from the entries (tests). Costs: Add and Remove
// as ContainerPool's (linear in the containers held, a memmove) plus
// logarithmic updates of the views; LaunchIn and Ended logarithmic.
// Not thread-safe; owned by one role.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/functional/function_ref.h"
#include "policy/common/container_pool.h"

namespace weft::policy {

class IndexedContainerPool {
 public:
  using Entry = ContainerPool::Entry;

  // As ContainerPool's (container_pool.h), keeping the views.
  void Add(const ContainerInfo& container);
  bool Remove(ContainerId id);
  bool LaunchIn(Context& ctx, const TaskRef& task, const Resources& demand, ContainerId id);
  void Ended(ContainerId id, const Resources& demand);

  const Entry* Find(ContainerId id) const { return pool_.Find(id); }
  bool empty() const { return pool_.empty(); }
  size_t size() const { return pool_.size(); }
  const std::vector<Entry>& entries() const { return pool_.entries(); }
  bool Holds(const Resources& demand, ResourceMask unfitted) const { return pool_.Holds(demand, unfitted); }

  // WithRoom: the held containers, in id order, whose free room (size minus
  // in_use) satisfies `fits`; only idle ones when `idle_only`. `fits` is
  // called once per distinct free room, so it should depend on nothing else.
  std::vector<ContainerId> WithRoom(absl::FunctionRef<bool(const Resources& free)> fits, bool idle_only) const;
  // The ids of the held containers that run no task, in increasing order.
  const absl::btree_set<uint32_t>& idle() const { return idle_; }
  // newly_idle: the held containers that became idle (granted idle, or their
  // last task ended) since the last ClearNewlyIdle and are idle still, in id
  // order: an owner that acts on each container once when it turns idle
  // (spark-dynamic's idle timer) visits these, not every idle one.
  const absl::btree_set<uint32_t>& newly_idle() const { return newly_idle_; }
  void ClearNewlyIdle() { newly_idle_.clear(); }
  // ByLoad: the held containers by (tasks, latest granted first): idle ones
  // first, then the emptiest. Pairs of (tasks, id).
  struct LoadOrder {
    bool operator()(const std::pair<uint32_t, uint32_t>& a, const std::pair<uint32_t, uint32_t>& b) const {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    }
  };
  using ByLoad = absl::btree_set<std::pair<uint32_t, uint32_t>, LoadOrder>;
  const ByLoad& by_load() const { return by_load_; }

  // CheckViews: empty when the views agree with a recomputation from the
  // entries, else what differs (tests).
  std::string CheckViews() const;

 private:
  // A container's class in the room index: idle or not, then its free room
  // in micro-units (Resources has no order).
  using RoomKey = std::pair<bool, std::array<int64_t, kNumResources>>;
  static RoomKey KeyOf(const Entry& e);
  // Unindex / Index take a held entry out of the views / put it in;
  // `newly_idle`: an idle entry joins newly_idle_ too.
  void Unindex(const Entry& e);
  void Index(const Entry& e, bool newly_idle);

  ContainerPool pool_;
  absl::btree_map<RoomKey, absl::btree_set<uint32_t>> by_room_;  // non-empty sets only
  absl::btree_set<uint32_t> idle_;
  absl::btree_set<uint32_t> newly_idle_;  // a subset of idle_
  ByLoad by_load_;
};

}  // namespace weft::policy
