#include "policy/ursa/ursa.h"

#include <cmath>

#include "policy/ursa/job_manager.h"
#include "policy/ursa/node_agent.h"
#include "policy/baseline/executor_roles.h"
#include "policy/ursa/scheduler.h"
#include "policy/ursa/yarn_manager.h"

namespace weft::policy::ursa {
namespace {

// Both policies run monotasks beside whole tasks (stages without phases) on
// one machine: a monotask holds no reservation, so the node agent's limits
// count monotasks only, and a core, disk or link a whole task reserves can
// also serve a monotask. That is overbooking of cpu, disk and net, declared
// as such (the execution models then share or slow them; memory is never
// overbooked).
constexpr ResourceMask kMonotaskOverbooking = MaskOf(kCpu) | MaskOf(kDisk) | MaskOf(kNet);

class UrsaPolicy final : public Policy {
 public:
  UrsaPolicy(const SchedulerConfig& scheduler, const NodeConfig& node, double m2i)
      : scheduler_(scheduler), node_(node), m2i_(m2i) {}

  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  ResourceMask overbooked_by_design() const override { return kMonotaskOverbooking; }
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

// Y+U: YARN's FIFO container scheduler (the executor baseline's, shared),
// Ursa's job managers running monotasks in per-job containers.
class UrsaYarnPolicy final : public Policy {
 public:
  UrsaYarnPolicy(const YarnConfig& yarn, const NodeConfig& node, double cpu_oversubscription)
      : yarn_(yarn), node_(node), cpu_oversubscription_(cpu_oversubscription) {}

  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  ResourceMask overbooked_by_design() const override { return kMonotaskOverbooking; }
  bool has_job_managers() const override { return true; }
  bool has_node_agents() const override { return true; }

  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<baseline::ExecutorScheduler>(ctx, 0, cpu_oversubscription_);
  }
  std::unique_ptr<JobManager> MakeJobManager(Context& ctx, JobId job) override {
    return std::make_unique<UrsaYarnManager>(ctx, job, yarn_);
  }
  std::unique_ptr<NodeAgent> MakeNodeAgent(Context& ctx, MachineId machine) override {
    return std::make_unique<UrsaNode>(ctx, machine, node_);
  }

 private:
  YarnConfig yarn_;
  NodeConfig node_;
  double cpu_oversubscription_;
};

ParamSpec NetConcurrency() {
  return {.name = "net_concurrency", .type = ParamType::kInt, .default_value = "1",
          .help = "network monotasks a worker runs at once", .min = 1, .max = 64};
}
ParamSpec DiskConcurrency() {
  return {.name = "disk_concurrency", .type = ParamType::kInt, .default_value = "1",
          .help = "disk monotasks a worker runs at once", .min = 1, .max = 64};
}
NodeConfig NodeConfigOf(const Params& p) {
  return NodeConfig{.net_concurrency = static_cast<uint32_t>(p.Int("net_concurrency")),
                    .disk_concurrency = static_cast<uint32_t>(p.Int("disk_concurrency"))};
}

}  // namespace

const PolicyInfo kUrsaYarnInfo{
    .name = "ursa-yarn",
    .description = "Ursa on YARN (Y+U): Ursa's monotask queues inside per-job containers from a FIFO YARN allocator",
    .source = "Jin et al., Improving Resource Utilization by Timely Fine-Grained Scheduling (Ursa), EuroSys'20, section 5.1.2, Table 4",
    .params = {{.name = "executors", .type = ParamType::kInt, .default_value = "4",
                .help = "containers each job asks for and holds until it ends", .min = 1, .max = 1'000'000},
               {.name = "executor_cpu", .type = ParamType::kDouble, .default_value = "4",
                .help = "cores per container (its monotask cpu limit)", .min = 1e-3, .max = 1e6},
               {.name = "executor_mem", .type = ParamType::kDouble, .default_value = "8",
                .help = "memory per container, GB", .min = 1e-3, .max = 1e9},
               NetConcurrency(), DiskConcurrency(), CpuOversubscriptionParam()},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      const YarnConfig yarn{.executors = p.Int("executors"), .executor_cpu = p.Double("executor_cpu"),
                            .executor_mem = p.Double("executor_mem")};
      return std::make_unique<UrsaYarnPolicy>(yarn, NodeConfigOf(p), p.Double("cpu_oversubscription"));
    },
};

const PolicyInfo kUrsaInfo{
    .name = "ursa",
    .description = "Ursa: monotasks in per-resource node queues, memory admission, stage-aware Algorithm 1 placement",
    .source = "Jin et al., Improving Resource Utilization by Timely Fine-Grained Scheduling (Ursa), EuroSys'20, sections 4.1-4.2",
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
               NetConcurrency(), DiskConcurrency()},
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
      return std::make_unique<UrsaPolicy>(s, NodeConfigOf(p), p.Double("m2i"));
    },
};

}  // namespace weft::policy::ursa
