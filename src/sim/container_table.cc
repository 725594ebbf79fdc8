#include "sim/container_table.h"

#include <algorithm>

namespace weft::sim {

Resources ContainerTable::SizeOf(ContainerId c) const {
  if (!c.valid()) return Resources();
  const policy::ContainerInfo* info = Find(c);
  return info == nullptr ? Resources() : info->size;
}

const policy::ContainerInfo& ContainerTable::Grant(JobId job, MachineId m, const Resources& size,
                                                   const policy::Address& by, TimeUs now) {
  const ContainerId id(next_++);
  policy::ContainerInfo info{id, job, m, size, Resources(), Resources(), 0, by, now};
  return containers_.emplace(id.value(), info).first->second;
}

policy::ContainerInfo ContainerTable::Remove(ContainerId c) {
  const auto it = containers_.find(c.value());
  const policy::ContainerInfo info = it->second;
  containers_.erase(it);
  return info;
}

void ContainerTable::AddTask(ContainerId c, const Resources& reserve) {
  policy::ContainerInfo& info = containers_.at(c.value());
  info.in_use += reserve;
  ++info.tasks;
}

void ContainerTable::RemoveTask(ContainerId c, const Resources& reserved) {
  const auto it = containers_.find(c.value());
  if (it == containers_.end()) return;
  it->second.in_use -= reserved;
  --it->second.tasks;
}

bool ContainerTable::MoveReservation(ContainerId c, const Resources& from, const Resources& to,
                                     const Resources& grow) {
  const auto it = containers_.find(c.value());
  if (it == containers_.end()) return true;
  policy::ContainerInfo& info = it->second;
  if (!(info.in_use + grow).FitsIn(info.size)) return false;
  info.in_use -= from;
  info.in_use += to;
  return true;
}

void ContainerTable::UsageChanged(ContainerId c, const Resources& before, const Resources& after) {
  const auto it = containers_.find(c.value());
  if (it == containers_.end()) return;
  it->second.used -= before;
  it->second.used += after;
}

namespace {
template <typename Pred>
std::vector<uint32_t> SortedIds(const absl::flat_hash_map<uint32_t, policy::ContainerInfo>& containers, Pred pred) {
  std::vector<uint32_t> ids;
  for (const auto& [id, info] : containers) {
    if (pred(info)) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}
}  // namespace

std::vector<uint32_t> ContainerTable::OfJob(JobId job) const {
  return SortedIds(containers_, [job](const policy::ContainerInfo& c) { return c.job == job; });
}

std::vector<uint32_t> ContainerTable::OnMachine(MachineId m) const {
  return SortedIds(containers_, [m](const policy::ContainerInfo& c) { return c.machine == m; });
}

}  // namespace weft::sim
