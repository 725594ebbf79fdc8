#include "policy/baseline/fair.h"

#include "policy/common/fair_share.h"

namespace weft::policy::baseline {
namespace {

class FairPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<FairShareScheduler>(ctx, CpuShare);
  }
};

}  // namespace

const PolicyInfo kFairInfo{
    .name = "fair",
    .description = "max-min fair share of cores across users (weighted), each user's jobs FIFO",
    .source = "Hadoop/YARN Fair Scheduler; Zaharia et al., Delay Scheduling, EuroSys'10, section 2",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<FairPolicy>(); },
};

}  // namespace weft::policy::baseline
