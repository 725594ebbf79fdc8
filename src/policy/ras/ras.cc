#include "policy/ras/ras.h"

#include "policy/ras/scheduler.h"

namespace weft::policy::ras {
namespace {

class RasPolicy final : public Policy {
 public:
  explicit RasPolicy(RasConfig config) : config_(config) {}
  Knowledge knowledge() const override { return Knowledge::kSemiClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<RasScheduler>(ctx, config_);
  }

 private:
  RasConfig config_;
};

}  // namespace

const PolicyInfo kRasInfo{
    .name = "ras",
    .description = "job slots sized by per-phase resource profiles, max-min utility placement from completion-time "
                   "goals every period, no over-commit",
    .source = "Polo et al., Resource-aware Adaptive Scheduling for MapReduce Clusters, Middleware'11, section 3",
    .params = {{.name = "period",
                .type = ParamType::kDouble,
                .default_value = "10",
                .help = "seconds between placement control cycles",
                .min = 0.001,
                .max = 86400},
               {.name = "max_rounds",
                .type = ParamType::kInt,
                .default_value = "10",
                .help = "rounds of map placement per cycle (Algorithm 1)",
                .min = 1,
                .max = 1000},
               {.name = "parallel_copies",
                .type = ParamType::kInt,
                .default_value = "5",
                .help = "map outputs a reducer pulls at once in shuffle (Hadoop's parallelCopies)",
                .min = 1,
                .max = 1000}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      RasConfig c;
      c.period_us = static_cast<TimeUs>(p.Double("period") * static_cast<double>(kUsPerSecond));
      c.max_rounds = static_cast<uint32_t>(p.Int("max_rounds"));
      c.parallel_copies = static_cast<uint32_t>(p.Int("parallel_copies"));
      return std::make_unique<RasPolicy>(c);
    },
};

}  // namespace weft::policy::ras
