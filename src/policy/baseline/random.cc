#include "policy/baseline/random.h"

#include <span>
#include <vector>

#include "policy/common/offer_scheduler.h"

namespace weft::policy::baseline {
namespace {

// SwapRemove drops v[i] in O(1); the order of the rest changes, but
// deterministically.
template <typename T>
void SwapRemove(std::vector<T>& v, size_t i) {
  v[i] = v.back();
  v.pop_back();
}

class RandomScheduler final : public OfferScheduler {
 public:
  using OfferScheduler::OfferScheduler;

 protected:
  // The key only fixes the order in which groups are listed before a draw,
  // so that draws are reproducible; it does not favour any group.
  OrderKey KeyFor(const GroupId& g) override { return FifoKey(ctx_.job(g.job), g.stage); }

  // Draws, not the key, decide: each freed machine draws among every ready
  // group (fresh ones included), then fresh groups draw machines.
  void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) override {
    OfferThenPlace(freed, fresh);
  }

  void PlaceGroup(const GroupId& g) override {
    const ClusterState& cluster = ctx_.cluster();
    const Resources& demand = ctx_.job(g.job).demand(g.stage);
    std::vector<MachineId> fits;
    finder_.ForEachCandidate([&](MachineId m) {
      if (cluster.Fits(m, demand)) fits.push_back(m);
      return true;
    });
    // Launching only shrinks a machine's free resources, so a machine that no
    // longer fits never fits again within this call: drop it when drawn.
    // Conditioned on drawing a machine that fits, the draw is uniform among
    // those that fit.
    while (pool_.count(g) > 0 && !fits.empty()) {
      const size_t i = ctx_.rng().UniformInt(fits.size());
      if (!cluster.Fits(fits[i], demand) || !LaunchFront(g, fits[i])) SwapRemove(fits, i);
    }
  }

  void OfferMachine(MachineId m) override {
    const ClusterState& cluster = ctx_.cluster();
    std::vector<GroupId> fits;
    for (const auto& [key, g] : pool_.ordered()) {
      if (cluster.Fits(m, ctx_.job(g.job).demand(g.stage))) fits.push_back(g);
    }
    // As in PlaceGroup: groups that stop fitting (or empty) are dropped when drawn.
    while (!fits.empty()) {
      const size_t i = ctx_.rng().UniformInt(fits.size());
      const GroupId g = fits[i];
      if (pool_.count(g) == 0 || !cluster.Fits(m, ctx_.job(g.job).demand(g.stage)) || !LaunchFront(g, m)) {
        SwapRemove(fits, i);
      }
    }
  }
};

class RandomPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<RandomScheduler>(ctx);
  }
};

}  // namespace

const PolicyInfo kRandomInfo{
    .name = "random",
    .description = "each ready task on a uniformly random machine that fits; a freed machine takes random groups",
    .source = "the \"Random order\" baseline of Grandl et al., Do the Hard Stuff First: Scheduling Dependent Computations in Data-Analytics Clusters (DAGPS), MSR-TR-2016-19, "
              "section 8.1",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<RandomPolicy>(); },
};

}  // namespace weft::policy::baseline
