#include "policy/baseline/fifo.h"

#include "policy/common/offer_scheduler.h"

namespace weft::policy::baseline {
namespace {

class FifoScheduler final : public OfferScheduler {
 public:
  using OfferScheduler::OfferScheduler;

 protected:
  OrderKey KeyFor(const GroupId& g) override { return FifoKey(ctx_.job(g.job), g.stage); }
};

class FifoPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<FifoScheduler>(ctx);
  }
};

}  // namespace

const PolicyInfo kFifoInfo{
    .name = "fifo",
    .description = "jobs in priority then arrival order, each task on the first machine that fits",
    .source = "Hadoop FIFO scheduler; the baseline of every paper weft implements",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<FifoPolicy>(); },
};

}  // namespace weft::policy::baseline
