#include "policy/baseline/drf.h"

#include "policy/common/fair_share.h"

namespace weft::policy::baseline {
namespace {

class DrfPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    const Resources capacity = ctx.cluster().cluster().total_capacity();
    return std::make_unique<FairShareScheduler>(
        ctx, [capacity](const Resources& allocated, double weight) {
          return DominantShare(allocated, capacity, weight);
        });
  }
};

}  // namespace

const PolicyInfo kDrfInfo{
    .name = "drf",
    .description = "Dominant Resource Fairness across users (weighted), each user's jobs FIFO",
    .source = "Ghodsi et al., Dominant Resource Fairness, NSDI'11, section 4",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<DrfPolicy>(); },
};

}  // namespace weft::policy::baseline
