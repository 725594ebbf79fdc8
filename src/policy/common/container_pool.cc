#include "policy/common/container_pool.h"

#include <algorithm>

namespace weft::policy {
namespace {

bool ById(const ContainerPool::Entry& e, ContainerId id) { return e.id < id; }

}  // namespace

void ContainerPool::Add(const ContainerInfo& container) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), container.id, ById);
  if (it != entries_.end() && it->id == container.id) return;
  // Start from the platform's account: a freshly granted container is empty,
  // but an owner that (re)builds its book from ctx.container() gets it right.
  entries_.insert(it, Entry{container.id, container.machine, container.size, container.in_use, container.tasks});
}

bool ContainerPool::Remove(ContainerId id) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), id, ById);
  if (it == entries_.end() || it->id != id) return false;
  entries_.erase(it);
  return true;
}

const ContainerPool::Entry* ContainerPool::Find(ContainerId id) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), id, ById);
  return it == entries_.end() || it->id != id ? nullptr : &*it;
}

ContainerPool::Entry* ContainerPool::FindMutable(ContainerId id) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), id, ById);
  return it == entries_.end() || it->id != id ? nullptr : &*it;
}

ContainerId ContainerPool::FirstFit(const Resources& demand, const Context& ctx) const {
  for (const Entry& e : entries_) {
    if ((e.in_use + demand).FitsInExcept(e.size, ctx.cluster().unfitted()) && ctx.container(e.id) != nullptr) {
      return e.id;
    }
  }
  return ContainerId();
}

bool ContainerPool::Holds(const Resources& demand, ResourceMask unfitted) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return demand.FitsInExcept(e.size, unfitted); });
}

ContainerId ContainerPool::Launch(Context& ctx, const TaskRef& task, const Resources& demand) {
  const ContainerId id = FirstFit(demand, ctx);
  return id.valid() && LaunchIn(ctx, task, demand, id) ? id : ContainerId();
}

bool ContainerPool::LaunchIn(Context& ctx, const TaskRef& task, const Resources& demand, ContainerId id) {
  Entry* e = FindMutable(id);
  if (e == nullptr || !(e->in_use + demand).FitsInExcept(e->size, ctx.cluster().unfitted()) ||
      ctx.container(id) == nullptr) {
    return false;
  }
  if (!ctx.LaunchInContainer(task, id).ok()) return false;
  e->in_use += demand;
  ++e->tasks;
  return true;
}

void ContainerPool::Ended(ContainerId id, const Resources& demand) {
  Entry* e = FindMutable(id);
  if (e == nullptr || e->tasks == 0) return;
  e->in_use -= demand;
  --e->tasks;
}

std::vector<ContainerId> ContainerPool::Idle() const {
  std::vector<ContainerId> idle;
  for (const Entry& e : entries_) {
    if (e.tasks == 0) idle.push_back(e.id);
  }
  return idle;
}

Resources ContainerPool::TotalSize() const {
  Resources total;
  for (const Entry& e : entries_) total += e.size;
  return total;
}

Resources ContainerPool::TotalInUse() const {
  Resources total;
  for (const Entry& e : entries_) total += e.in_use;
  return total;
}

std::vector<int64_t> EncodeResources(const Resources& r) {
  std::vector<int64_t> list(kNumResources);
  for (int i = 0; i < kNumResources; ++i) list[i] = r.micro(static_cast<Resource>(i));
  return list;
}

Resources DecodeResources(std::span<const int64_t> list) {
  Resources r;
  for (size_t i = 0; i < list.size() && i < kNumResources; ++i) {
    r.set_micro(static_cast<Resource>(i), std::max<int64_t>(0, list[i]));
  }
  return r;
}

}  // namespace weft::policy
