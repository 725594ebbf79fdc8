#include "policy/baseline/cp.h"

#include <vector>

#include "policy/common/dag_ranks.h"
#include "policy/common/ranked_scheduler.h"

namespace weft::policy::baseline {
namespace {

// NegatedCriticalPaths: longer remaining critical path = smaller key.
std::vector<int64_t> NegatedCriticalPaths(const JobView& job) {
  const std::vector<TimeUs> cp = RemainingCriticalPaths(job, StageDurations(job));
  std::vector<int64_t> rank(cp.size());
  for (size_t s = 0; s < cp.size(); ++s) rank[s] = -cp[s];
  return rank;
}

class CpPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<RankedScheduler>(ctx, NegatedCriticalPaths);
  }
};

}  // namespace

const PolicyInfo kCpInfo{
    .name = "cp",
    .description = "critical path first: groups by decreasing remaining critical-path length of their stage",
    .source = "CPSched, as the \"CP\" baseline of Grandl et al., Do the Hard Stuff First: Scheduling Dependent Computations in Data-Analytics Clusters (DAGPS), MSR-TR-2016-19, "
              "sections 2.2 and 8.1",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<CpPolicy>(); },
};

}  // namespace weft::policy::baseline
