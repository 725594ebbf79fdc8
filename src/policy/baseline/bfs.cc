#include "policy/baseline/bfs.h"

#include <vector>

#include "policy/common/dag_ranks.h"
#include "policy/common/ranked_scheduler.h"

namespace weft::policy::baseline {
namespace {

std::vector<int64_t> Depths(const JobView& job) {
  const std::vector<uint32_t> depth = StageDepths(job);
  return std::vector<int64_t>(depth.begin(), depth.end());
}

class BfsPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<RankedScheduler>(ctx, Depths);
  }
};

}  // namespace

const PolicyInfo kBfsInfo{
    .name = "bfs",
    .description = "breadth first: groups by increasing depth of their stage in the job's DAG",
    .source = "the \"BFS\" baseline of Grandl et al., Do the Hard Stuff First: Scheduling Dependent Computations in Data-Analytics Clusters (DAGPS), MSR-TR-2016-19, section 8.1; "
              "Tez's breadth-first vertex order",
    .params = {},
    .make = [](const Params&) -> absl::StatusOr<std::unique_ptr<Policy>> { return std::make_unique<BfsPolicy>(); },
};

}  // namespace weft::policy::baseline
