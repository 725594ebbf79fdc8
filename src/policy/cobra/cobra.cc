#include "policy/cobra/cobra.h"

#include <string>

#include "core/status.h"
#include "fmt/format.h"
#include "policy/cobra/manager.h"
#include "policy/cobra/scheduler.h"

namespace weft::policy::cobra {
namespace {

class CobraPolicy final : public Policy {
 public:
  CobraPolicy(const CobraConfig& config, Knowledge knowledge) : config_(config), knowledge_(knowledge) {}

  Knowledge knowledge() const override { return knowledge_; }
  // Over-subscribed cpu is overbooked by design (container_protocol.h).
  ResourceMask overbooked_by_design() const override { return config_.cpu_oversubscription > 1 ? MaskOf(kCpu) : 0; }
  bool has_job_managers() const override { return true; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<CobraScheduler>(ctx, config_);
  }
  std::unique_ptr<JobManager> MakeJobManager(Context& ctx, JobId job) override {
    return std::make_unique<CobraManager>(ctx, job, config_);
  }

 private:
  CobraConfig config_;
  Knowledge knowledge_;
};

// Seconds reads a parameter in seconds as microseconds.
absl::Status Seconds(const Params& params, const char* key, TimeUs* out) {
  auto us = SecondsToUs(params.Double(key));
  if (!us.ok()) return absl::InvalidArgumentError(fmt::format("{}: {}", key, StatusMessage(us.status())));
  *out = *us;
  return absl::OkStatus();
}

// ReadCommon reads what every variant has: the container and its response
// time; plain delay's waits when the variant has them.
absl::Status ReadCommon(const Params& params, CobraConfig* config, bool waits) {
  auto size = Resources::FromUnits({params.Double("container_cpu"), params.Double("container_mem"), 0, 0});
  if (!size.ok()) return absl::InvalidArgumentError(fmt::format("bad container size: {}", StatusMessage(size.status())));
  config->container = *size;
  if (auto s = Seconds(params, "response_time", &config->response_time_us); !s.ok()) return s;
  if (!waits) return absl::OkStatus();
  if (auto s = Seconds(params, "node_wait", &config->node_wait_us); !s.ok()) return s;
  return Seconds(params, "rack_wait", &config->rack_wait_us);
}

absl::StatusOr<std::unique_ptr<Policy>> MakeCobra(const Params& params) {
  CobraConfig config;
  if (auto s = ReadCommon(params, &config, false); !s.ok()) return s;
  config.af.rho = params.Double("rho");
  config.af.delta = params.Double("delta");
  config.tau = params.Double("tau");
  config.initial_desire = params.Double("initial_desire");
  if (auto s = Seconds(params, "period", &config.period_us); !s.ok()) return s;
  if (config.period_us <= 0) return absl::InvalidArgumentError("period: must be positive");
  return MakeCobraPolicy(config, Knowledge::kSemiClairvoyant);
}

absl::StatusOr<std::unique_ptr<Policy>> MakeCobraDefault(const Params& params) {
  CobraConfig config;
  config.desire_mode = DesireMode::kPerTask;
  config.placement = PlacementMode::kDelay;
  config.reuse = false;
  if (auto s = ReadCommon(params, &config, true); !s.ok()) return s;
  return MakeCobraPolicy(config, Knowledge::kNonClairvoyant);
}

absl::StatusOr<std::unique_ptr<Policy>> MakeSparkDynamic(const Params& params) {
  CobraConfig config;
  config.desire_mode = DesireMode::kSparkDynamic;
  config.placement = PlacementMode::kDelay;
  if (auto s = ReadCommon(params, &config, true); !s.ok()) return s;
  config.initial_desire = static_cast<double>(params.Int("initial_executors"));
  if (auto s = Seconds(params, "backlog_timeout", &config.backlog_timeout_us); !s.ok()) return s;
  if (auto s = Seconds(params, "sustained_backlog_timeout", &config.sustained_backlog_timeout_us); !s.ok()) return s;
  if (auto s = Seconds(params, "idle_timeout", &config.idle_timeout_us); !s.ok()) return s;
  config.cpu_oversubscription = params.Double("cpu_oversubscription");
  return MakeCobraPolicy(config, Knowledge::kNonClairvoyant);
}

ParamSpec SecondsParam(std::string name, std::string default_value, std::string help) {
  return ParamSpec{.name = std::move(name),
                   .type = ParamType::kDouble,
                   .default_value = std::move(default_value),
                   .help = std::move(help),
                   .min = 0,
                   .max = 1e9};
}

// The container every variant is built on, and its response time.
std::vector<ParamSpec> ContainerParams() {
  return {
      {.name = "container_cpu",
       .type = ParamType::kDouble,
       .default_value = "1",
       .help = "cores of the fixed-capacity container (also sets its share of disk and net bandwidth)",
       .min = 0.001,
       .max = 1e6},
      {.name = "container_mem",
       .type = ParamType::kDouble,
       .default_value = "2",
       .help = "memory of the container, GB",
       .min = 0,
       .max = 1e6},
      SecondsParam("response_time", "1",
              "seconds the job scheduler takes to grant a container request (Table I: 996 ms on average)"),
  };
}

std::vector<ParamSpec> With(std::vector<ParamSpec> a, const std::vector<ParamSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<ParamSpec> kDelayWaits = {
    SecondsParam("node_wait", "3", "seconds a task waits for a node-local container before a rack-local one"),
    SecondsParam("rack_wait", "3", "further seconds before any container"),
};

}  // namespace

std::unique_ptr<Policy> MakeCobraPolicy(const CobraConfig& config, Knowledge knowledge) {
  return std::make_unique<CobraPolicy>(config, knowledge);
}

const PolicyInfo kCobraInfo{
    .name = "cobra",
    .description = "COBRA: fair job scheduler over reusable containers; Af desires from measured utilization, "
                   "Pdelay per-task locality waits",
    .source = "Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant Scheduling in Data Analytics Systems, INFOCOM'18: Af Algorithm 1 and Pdelay Algorithm 2 (section IV), fair job "
              "scheduler (sections III, V)",
    .params = With(ContainerParams(),
                   {
                       {.name = "rho",
                        .type = ParamType::kDouble,
                        .default_value = "1.5",
                        .help = "Af's adjustment factor: desire x rho when efficient and satisfied, / rho "
                                "when inefficient",
                        .min = 1.000001,
                        .max = 1e3},
                       {.name = "delta",
                        .type = ParamType::kDouble,
                        .default_value = "0.7",
                        .help = "utilization threshold: a period below it with no waiting task is "
                                "inefficient; Pdelay runs a task anywhere only in a container at least "
                                "1-delta free",
                        .min = 0.001,
                        .max = 1},
                       SecondsParam("period", "5", "Af's scheduling period L, seconds"),
                       {.name = "tau",
                        .type = ParamType::kDouble,
                        .default_value = "0.1",
                        .help = "Pdelay: a task may run rack-local after waiting tau x its processing "
                                "time, anywhere after 2 tau x it",
                        .min = 0,
                        .max = 1e6},
                       {.name = "initial_desire",
                        .type = ParamType::kDouble,
                        .default_value = "1",
                        .help = "containers a job desires in its first period",
                        .min = 1,
                        .max = 1e6},
                   }),
    .make = MakeCobra,
};

const PolicyInfo kCobraDefaultInfo{
    .name = "cobra-default",
    .description = "COBRA's Default: one task per fixed-capacity container, returned when it ends; fair "
                   "division; plain delay scheduling",
    .source = "Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant Scheduling in Data Analytics Systems, INFOCOM'18, sections II-B (Fig. 2) and VII-B (Default)",
    .params = With(ContainerParams(), kDelayWaits),
    .make = MakeCobraDefault,
};

const PolicyInfo kSparkDynamicInfo{
    .name = "spark-dynamic",
    .description = "Spark dynamic allocation (DRS): executors grow exponentially while tasks wait and go back "
                   "when idle",
    .source = "Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant Scheduling in Data Analytics Systems, INFOCOM'18, section VII (dynamic scheduling in Spark 2.0); Spark's "
              "spark.dynamicAllocation.*",
    .params = With(With(ContainerParams(), kDelayWaits),
                   {
                       {.name = "initial_executors",
                        .type = ParamType::kInt,
                        .default_value = "1",
                        .help = "executors a job starts with",
                        .min = 1,
                        .max = 100000},
                       SecondsParam("backlog_timeout", "1",
                               "schedulerBacklogTimeout: seconds tasks wait before the first executor is added"),
                       SecondsParam("sustained_backlog_timeout", "1",
                               "sustainedSchedulerBacklogTimeout: seconds between later (doubling) additions"),
                       SecondsParam("idle_timeout", "60", "executorIdleTimeout: seconds before an idle executor goes back"),
                       CpuOversubscriptionParam(),
                   }),
    .make = MakeSparkDynamic,
};

}  // namespace weft::policy::cobra
