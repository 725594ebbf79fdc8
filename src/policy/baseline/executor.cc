#include "policy/baseline/executor.h"

#include "core/status.h"
#include "fmt/format.h"
#include "policy/baseline/executor_roles.h"

namespace weft::policy::baseline {
namespace {

class ExecutorPolicy final : public Policy {
 public:
  explicit ExecutorPolicy(const ExecutorConfig& config) : config_(config) {}

  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  bool has_job_managers() const override { return true; }

  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<ExecutorScheduler>(ctx, config_.response_time_us);
  }
  std::unique_ptr<JobManager> MakeJobManager(Context& ctx, JobId job) override {
    return std::make_unique<ExecutorManager>(ctx, job, config_);
  }

 private:
  ExecutorConfig config_;
};

absl::StatusOr<std::unique_ptr<Policy>> MakeExecutorPolicy(const Params& params) {
  ExecutorConfig config;
  config.executors = static_cast<uint32_t>(params.Int("executors"));
  auto size = Resources::FromUnits({params.Double("executor_cpu"), params.Double("executor_mem"), 0, 0});
  if (!size.ok()) return absl::InvalidArgumentError(fmt::format("bad executor size: {}", StatusMessage(size.status())));
  config.executor = *size;
  auto idle_timeout = SecondsToUs(params.Double("idle_timeout"));
  if (!idle_timeout.ok()) {
    return absl::InvalidArgumentError(fmt::format("idle_timeout: {}", StatusMessage(idle_timeout.status())));
  }
  config.idle_timeout_us = *idle_timeout;
  auto response_time = SecondsToUs(params.Double("response_time"));
  if (!response_time.ok()) {
    return absl::InvalidArgumentError(fmt::format("response_time: {}", StatusMessage(response_time.status())));
  }
  config.response_time_us = *response_time;
  return std::make_unique<ExecutorPolicy>(config);
}

}  // namespace

const PolicyInfo kExecutorInfo{
    .name = "executor",
    .description = "Spark-like static allocation: each job holds a fixed set of executors for its whole life",
    .source = "Spark on YARN with static allocation (Ursa section 5.1.1 Y+S; COBRA section V-C SRS)",
    .params =
        {
            {.name = "executors",
             .type = ParamType::kInt,
             .default_value = "4",
             .help = "executors (containers) each job asks for and holds until it ends (but see idle_timeout)",
             .min = 1,
             .max = 100000},
            {.name = "executor_cpu",
             .type = ParamType::kDouble,
             .default_value = "4",
             .help = "cores per executor (also sets its share of a machine's disk and net bandwidth)",
             .min = 0.001,
             .max = 1e6},
            {.name = "executor_mem",
             .type = ParamType::kDouble,
             .default_value = "8",
             .help = "memory per executor, GB",
             .min = 0,
             .max = 1e6},
            {.name = "idle_timeout",
             .type = ParamType::kDouble,
             .default_value = "60",
             .help = "seconds a job's executors may all sit idle while it has ready tasks none of them can hold "
                     "before it gives them back and asks again where those tasks fit (Spark's executorIdleTimeout)",
             .min = 0,
             .max = 1e9},
            {.name = "response_time",
             .type = ParamType::kDouble,
             .default_value = "0",
             .help = "seconds the cluster scheduler takes to grant a container request (COBRA's container "
                     "response time, Table I; not the message latency)",
             .min = 0,
             .max = 1e9},
        },
    .make = MakeExecutorPolicy,
};

}  // namespace weft::policy::baseline
