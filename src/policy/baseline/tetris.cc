#include "policy/baseline/tetris.h"

#include <algorithm>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/common/offer_scheduler.h"
#include "policy/common/packing.h"

namespace weft::policy::baseline {
namespace {

class TetrisScheduler final : public OfferScheduler {
 public:
  TetrisScheduler(Context& ctx, double srpt_weight)
      : OfferScheduler(ctx), srpt_weight_(srpt_weight), reference_(ReferenceCapacity(ctx.cluster())) {}

  void OnJobArrived(JobId job) override { Remaining(job); }

  void OnJobFinished(JobId job, bool succeeded) override {
    OfferScheduler::OnJobFinished(job, succeeded);
    remaining_.erase(job.value());
  }

 protected:
  // The FIFO key only breaks ties between equal scores.
  OrderKey KeyFor(const GroupId& g) override { return FifoKey(ctx_.job(g.job), g.stage); }

  // Scores, not the key, decide: each freed machine is offered to every
  // ready group (fresh ones included), then fresh groups take the best
  // aligned machines left.
  void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) override {
    OfferThenPlace(freed, fresh);
  }

  void OnEnded(const TaskEnd& end) override {
    if (end.outcome != Outcome::kOk) return;  // failed or killed: still to do
    auto it = remaining_.find(end.task.job.value());
    if (it == remaining_.end()) return;
    // Clamped: an estimate learned later (a stage known only by its phases)
    // may exceed what was counted at arrival.
    it->second = std::max(0.0, it->second - TaskWork(ctx_.job(end.task.job), end.task, reference_));
  }

  void OfferMachine(MachineId m) override {
    const ClusterState& cluster = ctx_.cluster();
    while (!Full(m)) {
      candidates_.clear();
      double sum_alignment = 0;
      double sum_work = 0;
      for (const auto& [key, g] : pool_.ordered()) {
        const Resources& demand = ctx_.job(g.job).demand(g.stage);
        if (!cluster.Fits(m, demand)) continue;
        const Candidate c{g, MachineAlignment(cluster, m, demand), Remaining(g.job)};
        sum_alignment += c.alignment;
        sum_work += c.work;
        candidates_.push_back(c);
      }
      if (candidates_.empty()) return;
      // eps = m * mean alignment / mean remaining work (the counts cancel).
      const double eps = sum_work > 0 ? srpt_weight_ * sum_alignment / sum_work : 0;
      const Candidate* best = &candidates_.front();
      double best_score = best->alignment - eps * best->work;
      for (const Candidate& c : candidates_) {
        const double score = c.alignment - eps * c.work;
        if (score > best_score) {
          best = &c;
          best_score = score;
        }
      }
      if (!LaunchFront(best->group, m)) return;  // refused: stop rather than spin
    }
  }

  void PlaceGroup(const GroupId& g) override {
    const ClusterState& cluster = ctx_.cluster();
    const Resources& demand = ctx_.job(g.job).demand(g.stage);
    while (pool_.count(g) > 0) {
      MachineId best;
      double best_alignment = -1;
      finder_.ForEachCandidate([&](MachineId m) {
        if (!cluster.Fits(m, demand)) return true;
        const double a = MachineAlignment(cluster, m, demand);
        if (a > best_alignment) {
          best = m;
          best_alignment = a;
        }
        return true;
      });
      if (!best.valid() || !LaunchFront(g, best)) return;
    }
  }

 private:
  struct Candidate {
    GroupId group;
    double alignment = 0;
    double work = 0;
  };

  // Remaining returns the job's remaining work, computing it on first use.
  double Remaining(JobId job) {
    auto it = remaining_.find(job.value());
    if (it == remaining_.end()) it = remaining_.emplace(job.value(), RemainingWork(ctx_.job(job), reference_)).first;
    return it->second;
  }

  const double srpt_weight_;
  const Resources reference_;
  absl::flat_hash_map<uint32_t, double> remaining_;  // by job id
  std::vector<Candidate> candidates_;                // scratch, reused across offers
};

class TetrisPolicy final : public Policy {
 public:
  explicit TetrisPolicy(double srpt_weight) : srpt_weight_(srpt_weight) {}
  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<TetrisScheduler>(ctx, srpt_weight_);
  }

 private:
  double srpt_weight_;
};

}  // namespace

const PolicyInfo kTetrisInfo{
    .name = "tetris",
    .description = "multi-resource packing: best alignment of demand with free resources, plus shortest remaining work",
    .source = "Grandl et al., Multi-Resource Packing for Cluster Schedulers (SIGCOMM'14) section 3; a baseline of DAGPS (Grandl et al., MSR-TR-2016-19) section 8 and of COBRA (Zhang et al., INFOCOM'18)",
    .params = {{.name = "srpt_weight",
                .type = ParamType::kDouble,
                .default_value = "1",
                .help = "m in eps = m x mean alignment / mean remaining work; 0 packs only, larger favours short jobs",
                .min = 0,
                .max = 1e6}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      return std::make_unique<TetrisPolicy>(p.Double("srpt_weight"));
    },
};

}  // namespace weft::policy::baseline
