// File: policy/common/ranked_scheduler.h
//
// RankedScheduler: an OfferScheduler whose groups are ordered by a per-stage
// rank of the job's DAG (smaller first), ties in FIFO order (RankedKey in
// dag_ranks.h); or, with Across::kFifo, jobs in FIFO order and the rank only
// inside a job (coffman-graham's default). The rank function is computed once per job, when its first
// tasks become ready, and forgotten when the job ends. The cp baseline ranks
// stages by negated remaining critical path, bfs by depth; any policy that
// orders work by a static property of the stage can reuse it.
// Not thread-safe; one per scheduler role.
#pragma once

#include <utility>

#include "policy/common/dag_ranks.h"
#include "policy/common/offer_scheduler.h"

namespace weft::policy {

class RankedScheduler : public OfferScheduler {
 public:
  // How groups of different jobs compare: by rank (ties FIFO), or FIFO.
  enum class Across : uint8_t { kRank, kFifo };

  RankedScheduler(Context& ctx, StageRankCache::RankFn rank, Across across = Across::kRank)
      : OfferScheduler(ctx), ranks_(std::move(rank)), across_(across) {}

  void OnJobFinished(JobId job, bool succeeded) override {
    OfferScheduler::OnJobFinished(job, succeeded);
    ranks_.Forget(job);
  }

 protected:
  OrderKey KeyFor(const GroupId& g) override {
    const JobView job = ctx_.job(g.job);
    if (across_ == Across::kRank) return RankedKey(ranks_.Rank(job, g.stage), job, g.stage);
    const OrderKey fifo = FifoKey(job, g.stage);
    return {fifo[0], fifo[1], static_cast<int64_t>(g.job.value()), ranks_.Rank(job, g.stage)};
  }

 private:
  StageRankCache ranks_;
  Across across_;
};

}  // namespace weft::policy
