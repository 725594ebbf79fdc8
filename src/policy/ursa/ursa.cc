#include "policy/ursa/ursa.h"

#include <cmath>

#include "policy/ursa/job_manager.h"
#include "policy/ursa/node_agent.h"
#include "policy/ursa/scheduler.h"

namespace weft::policy::ursa {
namespace {

class UrsaPolicy final : public Policy {
 public:
  UrsaPolicy(const SchedulerConfig& scheduler, const NodeConfig& node, double m2i)
      : scheduler_(scheduler), node_(node), m2i_(m2i) {}

  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  bool has_job_managers() const override { return true; }
  bool has_node_agents() const override { return true; }

  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<UrsaScheduler>(ctx, scheduler_);
  }
  std::unique_ptr<JobManager> MakeJobManager(Context& ctx, JobId job) override {
    return std::make_unique<UrsaJobManager>(ctx, job, m2i_, Address::Scheduler(0));
  }
  std::unique_ptr<NodeAgent> MakeNodeAgent(Context& ctx, MachineId machine) override {
    return std::make_unique<UrsaNode>(ctx, machine, node_);
  }

 private:
  SchedulerConfig scheduler_;
  NodeConfig node_;
  double m2i_;
};

}  // namespace

const PolicyInfo kUrsaInfo{
    .name = "ursa",
    .description = "Ursa: monotasks in per-resource node queues, memory admission, stage-aware Algorithm 1 placement",
    .source = "Ursa (002_872a20c16a9dbee0.txt) sections 4.1-4.2",
    .params = {{.name = "order", .type = ParamType::kChoice, .default_value = "ejf",
                .help = "job order: earliest job first or smallest remaining job first", .choices = {"ejf", "srjf"}},
               {.name = "placement", .type = ParamType::kChoice, .default_value = "ursa",
                .help = "task placement: Algorithm 1, or Tetris / capacity on peak demands (Table 4)",
                .choices = {"ursa", "tetris", "capacity"}},
               {.name = "interval", .type = ParamType::kDouble, .default_value = "0.2",
                .help = "seconds between placement batches", .min = 1e-3, .max = 3600},
               {.name = "ept_factor", .type = ParamType::kDouble, .default_value = "1.2",
                .help = "EPT as a multiple of the interval (slightly above 1)", .min = 1, .max = 100},
               {.name = "weight", .type = ParamType::kDouble, .default_value = "1",
                .help = "W: how strongly the job order adds to placement scores", .min = 0, .max = 1e6},
               {.name = "m2i", .type = ParamType::kDouble, .default_value = "2",
                .help = "memory-to-input ratio of the memory estimate", .min = 0, .max = 1e6},
               {.name = "net_concurrency", .type = ParamType::kInt, .default_value = "2",
                .help = "network monotasks a worker runs at once", .min = 1, .max = 64},
               {.name = "disk_concurrency", .type = ParamType::kInt, .default_value = "1",
                .help = "disk monotasks a worker runs at once", .min = 1, .max = 64}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      SchedulerConfig s;
      s.order = p.Choice("order") == "srjf" ? JobOrder::kSrjf : JobOrder::kEjf;
      const std::string& placement = p.Choice("placement");
      s.placement = placement == "tetris"     ? PlacementKind::kTetris
                    : placement == "capacity" ? PlacementKind::kCapacity
                                              : PlacementKind::kUrsa;
      s.interval_us = std::max<TimeUs>(1, std::llround(p.Double("interval") * kUsPerSecond));
      s.ept_factor = p.Double("ept_factor");
      s.weight = p.Double("weight");
      const NodeConfig node{.net_concurrency = static_cast<uint32_t>(p.Int("net_concurrency")),
                            .disk_concurrency = static_cast<uint32_t>(p.Int("disk_concurrency"))};
      return std::make_unique<UrsaPolicy>(s, node, p.Double("m2i"));
    },
};

}  // namespace weft::policy::ursa
