#include "policy/common/packing.h"

#include <algorithm>

namespace weft::policy {

double Alignment(const Resources& demand, const Resources& free, const Resources& capacity, ResourceMask ignored) {
  double score = 0;
  for (int r = 0; r < kNumResources; ++r) {
    const auto res = static_cast<Resource>(r);
    const double cap = static_cast<double>(capacity.micro(res));
    if (cap <= 0 || InMask(ignored, res)) continue;
    score += (static_cast<double>(demand.micro(res)) / cap) * (static_cast<double>(free.micro(res)) / cap);
  }
  return score;
}

double MachineAlignment(const ClusterState& cluster, MachineId m, const Resources& demand) {
  return Alignment(demand, cluster.free(m), cluster.capacity(m), cluster.unfitted());
}

Resources ReferenceCapacity(const ClusterState& cluster) {
  Resources ref;
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    const Resources& cap = cluster.capacity(MachineId(m));
    for (int r = 0; r < kNumResources; ++r) {
      const auto res = static_cast<Resource>(r);
      ref.set_micro(res, std::max(ref.micro(res), cap.micro(res)));
    }
  }
  return ref;
}

double DemandSize(const Resources& demand, const Resources& reference) {
  double size = 0;
  for (int r = 0; r < kNumResources; ++r) {
    const auto res = static_cast<Resource>(r);
    if (reference.micro(res) <= 0) continue;
    size += static_cast<double>(demand.micro(res)) / static_cast<double>(reference.micro(res));
  }
  return size;
}

double TaskWork(const JobView& job, const TaskRef& task, const Resources& reference) {
  const double seconds = static_cast<double>(job.EstimatedDuration(task)) / static_cast<double>(kUsPerSecond);
  return seconds * DemandSize(job.demand(task.stage), reference);
}

double RemainingWork(const JobView& job, const Resources& reference) {
  double total = 0;
  for (uint32_t s = 0; s < job.num_stages(); ++s) {
    const double size = DemandSize(job.demand(s), reference);
    if (size == 0) continue;
    for (uint32_t i = 0; i < job.stage_tasks(s); ++i) {
      const TaskRef t{job.id(), s, i};
      const TaskState state = job.state(t);
      if (state == TaskState::kDone || state == TaskState::kAbandoned) continue;
      total += static_cast<double>(job.EstimatedDuration(t)) / static_cast<double>(kUsPerSecond) * size;
    }
  }
  return total;
}

}  // namespace weft::policy
