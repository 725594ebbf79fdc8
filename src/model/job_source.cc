#include "model/job_source.h"

#include <algorithm>

namespace weft {

std::optional<JobId> JobSource::Next() {
  if (peeked_) {
    const std::optional<JobId> id = *peeked_;
    peeked_.reset();
    return id;
  }
  return Pull();
}

std::optional<JobId> JobSource::Peek() {
  if (!peeked_) peeked_ = Pull();
  return *peeked_;
}

bool HasPhases(const Job& job) {
  return std::any_of(job.stages.begin(), job.stages.end(), [](const Stage& s) { return !s.phases.empty(); });
}

bool ReleaseStages(Job& job) {
  if (job.stages.empty() && job.num_tasks > 0) return false;  // released already
  // Swap with empties: clear() would keep the capacity.
  std::vector<Stage>().swap(job.stages);
  std::vector<uint32_t>().swap(job.topo_order);
  return true;
}

WorkloadSource::WorkloadSource(const Workload& workload) : w_(workload) {
  order_.reserve(w_.jobs.size());
  for (uint32_t j = 0; j < w_.jobs.size(); ++j) order_.push_back(JobId(j));
  std::stable_sort(order_.begin(), order_.end(), [&](JobId a, JobId b) {
    return w_.jobs[a.value()].arrival_us < w_.jobs[b.value()].arrival_us;
  });
  has_phases_ = std::any_of(w_.jobs.begin(), w_.jobs.end(), [](const Job& j) { return weft::HasPhases(j); });
}

std::optional<JobId> WorkloadSource::Pull() {
  if (next_ >= order_.size()) return std::nullopt;
  return order_[next_++];
}

}  // namespace weft
