#include "policy/common/dag_ranks.h"

#include <algorithm>
#include <utility>

namespace weft::policy {

std::vector<uint32_t> StageDepths(const JobView& job) {
  std::vector<uint32_t> depth(job.num_stages(), 0);
  // topo_order lists parents before children, so each parent's depth is final
  // when its child is reached.
  for (const uint32_t s : job.topo_order()) {
    for (const Edge& e : job.parents(s)) depth[s] = std::max(depth[s], depth[e.stage] + 1);
  }
  return depth;
}

std::vector<TimeUs> StageDurations(const JobView& job) {
  std::vector<TimeUs> duration(job.num_stages(), 0);
  for (uint32_t s = 0; s < job.num_stages(); ++s) {
    TimeUs longest = 0;
    for (uint32_t i = 0; i < job.stage_tasks(s); ++i) {
      longest = std::max(longest, job.EstimatedDuration(TaskRef{job.id(), s, i}));
    }
    duration[s] = longest;
  }
  return duration;
}

std::vector<TimeUs> RemainingCriticalPaths(const JobView& job, std::span<const TimeUs> durations) {
  std::vector<TimeUs> cp(job.num_stages(), 0);
  const auto order = job.topo_order();
  // Children before parents: walk the topological order backwards.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t s = *it;
    TimeUs tail = 0;
    for (const Edge& e : job.children(s)) tail = std::max(tail, cp[e.stage]);
    cp[s] = durations[s] + tail;
  }
  return cp;
}

DagRanks ComputeDagRanks(const JobView& job) {
  DagRanks ranks;
  ranks.depth = StageDepths(job);
  ranks.duration = StageDurations(job);
  ranks.remaining_cp = RemainingCriticalPaths(job, ranks.duration);
  return ranks;
}

OrderKey RankedKey(int64_t rank, const JobView& job, uint32_t stage) {
  const OrderKey fifo = FifoKey(job, stage);
  return {rank, fifo[0], fifo[1], fifo[2]};
}

int64_t StageRankCache::Rank(const JobView& job, uint32_t stage) {
  auto it = ranks_.find(job.id().value());
  if (it == ranks_.end()) it = ranks_.emplace(job.id().value(), fn_(job)).first;
  return it->second[stage];
}

}  // namespace weft::policy
