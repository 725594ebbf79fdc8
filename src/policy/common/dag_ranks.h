// File: policy/common/dag_ranks.h
//
// Per-stage ranks of a job's DAG, computed from what a JobView lets a policy
// see, and the order keys built from them. Shared by the cp and bfs baselines
// and by DAGPS (001_a7e14c78d79bdb00.txt, sections 2.2 and 8: "BFS: breadth
// first order, CP: critical path order").
//   - depth: the length, in edges, of the longest path from a root (a stage
//     without parents) to the stage. This is Tez's "distance from root"; a
//     deliberate choice over the shortest distance so that every stage is
//     strictly deeper than each of its parents, and breadth-first order is
//     always a topological order.
//   - duration: how long a stage holds up its barrier children on an
//     unbounded cluster: the longest EstimatedDuration of its tasks (for a
//     clairvoyant policy the true durations, with estimate_noise if set).
//   - remaining critical path: the stage's duration plus the longest remaining
//     critical path among its children; the sinks' is their own duration. This
//     is CPSched's "longest path from the task to the job output" (DAGPS 2.2),
//     at stage granularity. Pipelined edges are treated like barriers (an
//     upper bound: a pipelined child may overlap its parent).
// Plain functions, plus a per-job cache of ranks for the role that uses them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "core/time.h"
#include "policy/common/ready_pool.h"
#include "policy/job_view.h"

namespace weft::policy {

// StageDepths returns, per stage, its depth (0 for roots). Needs no durations,
// so it is available at every knowledge level.
std::vector<uint32_t> StageDepths(const JobView& job);

// StageDurations returns, per stage, the longest EstimatedDuration of its
// tasks. O(tasks of the job).
std::vector<TimeUs> StageDurations(const JobView& job);

// RemainingCriticalPaths returns, per stage, the remaining critical-path
// length given per-stage `durations` (one per stage).
std::vector<TimeUs> RemainingCriticalPaths(const JobView& job, std::span<const TimeUs> durations);

// DagRanks gathers the three for policies that want them all.
struct DagRanks {
  std::vector<uint32_t> depth;
  std::vector<TimeUs> duration;
  std::vector<TimeUs> remaining_cp;
};
DagRanks ComputeDagRanks(const JobView& job);

// RankedKey orders groups by `rank` (smaller first), then as FifoKey does
// (higher priority, earlier arrival, job, stage): {rank, FifoKey's three
// fields}, nothing clamped or packed beyond what FifoKey itself packs.
OrderKey RankedKey(int64_t rank, const JobView& job, uint32_t stage);

// StageRankCache computes a job's per-stage ranks once, on first use, and
// keeps them until Forget (when the job ends): ranks may cost O(tasks of the
// job) and are asked for every time tasks of a stage become ready. Owned by
// one role; not thread-safe.
class StageRankCache {
 public:
  using RankFn = std::function<std::vector<int64_t>(const JobView&)>;
  explicit StageRankCache(RankFn fn) : fn_(std::move(fn)) {}

  // Rank returns `stage`'s rank in `job`, computing the job's ranks if needed.
  int64_t Rank(const JobView& job, uint32_t stage);
  void Forget(JobId job) { ranks_.erase(job.value()); }
  size_t size() const { return ranks_.size(); }

 private:
  RankFn fn_;
  absl::flat_hash_map<uint32_t, std::vector<int64_t>> ranks_;
};

}  // namespace weft::policy
