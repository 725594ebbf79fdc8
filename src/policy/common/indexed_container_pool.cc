#include "policy/common/indexed_container_pool.h"

#include <algorithm>

#include "fmt/format.h"

namespace weft::policy {

IndexedContainerPool::RoomKey IndexedContainerPool::KeyOf(const Entry& e) {
  return {e.tasks == 0, (e.size - e.in_use).micros()};
}

void IndexedContainerPool::Index(const Entry& e, bool newly_idle) {
  by_room_[KeyOf(e)].insert(e.id.value());
  if (e.tasks == 0) idle_.insert(e.id.value());
  if (e.tasks == 0 && newly_idle) newly_idle_.insert(e.id.value());
  by_load_.insert({e.tasks, e.id.value()});
}

void IndexedContainerPool::Unindex(const Entry& e) {
  const auto it = by_room_.find(KeyOf(e));
  it->second.erase(e.id.value());
  if (it->second.empty()) by_room_.erase(it);
  idle_.erase(e.id.value());
  newly_idle_.erase(e.id.value());
  by_load_.erase({e.tasks, e.id.value()});
}

void IndexedContainerPool::Add(const ContainerInfo& container) {
  if (pool_.Find(container.id) != nullptr) return;
  pool_.Add(container);
  Index(*pool_.Find(container.id), true);
}

bool IndexedContainerPool::Remove(ContainerId id) {
  const Entry* e = pool_.Find(id);
  if (e == nullptr) return false;
  Unindex(*e);
  return pool_.Remove(id);
}

bool IndexedContainerPool::LaunchIn(Context& ctx, const TaskRef& task, const Resources& demand, ContainerId id) {
  const Entry* e = pool_.Find(id);
  if (e == nullptr) return false;
  const Entry before = *e;
  if (!pool_.LaunchIn(ctx, task, demand, id)) return false;
  Unindex(before);
  Index(*pool_.Find(id), false);
  return true;
}

void IndexedContainerPool::Ended(ContainerId id, const Resources& demand) {
  const Entry* e = pool_.Find(id);
  if (e == nullptr) return;
  const Entry before = *e;
  pool_.Ended(id, demand);
  // Still newly idle if it was (an end in an idle container is ignored), or
  // newly idle if this was its last task.
  const bool newly_idle = newly_idle_.contains(id.value()) || before.tasks > 0;
  Unindex(before);
  Index(*pool_.Find(id), newly_idle);
}

std::vector<ContainerId> IndexedContainerPool::WithRoom(absl::FunctionRef<bool(const Resources& free)> fits,
                                                        bool idle_only) const {
  std::vector<ContainerId> ids;
  for (const auto& [key, set] : by_room_) {
    if (idle_only && !key.first) continue;
    if (!fits(Resources::FromMicros(key.second))) continue;
    for (uint32_t id : set) ids.push_back(ContainerId(id));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string IndexedContainerPool::CheckViews() const {
  absl::btree_map<RoomKey, absl::btree_set<uint32_t>> by_room;
  absl::btree_set<uint32_t> idle;
  ByLoad by_load;
  for (const Entry& e : pool_.entries()) {
    by_room[KeyOf(e)].insert(e.id.value());
    if (e.tasks == 0) idle.insert(e.id.value());
    by_load.insert({e.tasks, e.id.value()});
  }
  std::string diff;
  if (by_room != by_room_) diff += "by_room ";
  if (idle != idle_) diff += fmt::format("idle ({} held, {} recomputed) ", idle_.size(), idle.size());
  if (by_load != by_load_) diff += "by_load ";
  for (uint32_t id : newly_idle_) {
    if (!idle_.contains(id)) diff += fmt::format("newly_idle has {} (not idle) ", id);
  }
  return diff;
}

}  // namespace weft::policy
