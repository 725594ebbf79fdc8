#include "policy/common/resource_queues.h"

#include <algorithm>

namespace weft::policy {

ResourceQueues::ResourceQueues(const std::array<uint32_t, kNumResources>& limits) {
  for (int r = 0; r < kNumResources; ++r) limits_[r] = std::max<uint32_t>(1, limits[r]);
}

void ResourceQueues::Push(const QueuedMonotask& m) {
  // cpu: larger inputs first; disk and net: smaller first (section 4.2.3).
  const double size = m.resource == kCpu ? -m.input_size : m.input_size;
  queues_[m.resource].insert(Entry{Key{m.job_rank, m.task.job.value(), m.task.stage, size, arrivals_++}, m});
}

std::optional<QueuedMonotask> ResourceQueues::PopStartable(Resource r) {
  if (queues_[r].empty() || running_[r] >= limits_[r]) return std::nullopt;
  const QueuedMonotask m = queues_[r].begin()->m;
  queues_[r].erase(queues_[r].begin());
  ++running_[r];
  return m;
}

void ResourceQueues::Finished(Resource r) {
  if (running_[r] > 0) --running_[r];
}

size_t ResourceQueues::RemoveTask(const TaskRef& task) {
  size_t removed = 0;
  for (auto& q : queues_) {
    removed += std::erase_if(q, [&](const Entry& e) { return e.m.task == task; });
  }
  return removed;
}

}  // namespace weft::policy
