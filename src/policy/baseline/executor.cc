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

// ExecutorParams: executor's parameters with the given defaults, so that
// spark-static is the same mechanism with the COBRA paper's defaults.
std::vector<ParamSpec> ExecutorParams(const char* executors, const char* cpu, const char* mem, const char* response) {
  return {
      {.name = "executors",
       .type = ParamType::kInt,
       .default_value = executors,
       .help = "executors (containers) each job asks for and holds until it ends (but see idle_timeout)",
       .min = 1,
       .max = 100000},
      {.name = "executor_cpu",
       .type = ParamType::kDouble,
       .default_value = cpu,
       .help = "cores per executor (also sets its share of a machine's disk and net bandwidth)",
       .min = 0.001,
       .max = 1e6},
      {.name = "executor_mem",
       .type = ParamType::kDouble,
       .default_value = mem,
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
       .default_value = response,
       .help = "seconds the cluster scheduler takes to grant a container request (COBRA's container "
               "response time, Table I; not the message latency)",
       .min = 0,
       .max = 1e9},
  };
}

}  // namespace

const PolicyInfo kExecutorInfo{
    .name = "executor",
    .description = "Spark-like static allocation: each job holds a fixed set of executors for its whole life",
    .source = "Spark on YARN with static allocation: Jin et al., Improving Resource Utilization by Timely Fine-Grained Scheduling (Ursa), EuroSys'20, section 5.1.1 (Y+S); "
              "Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant Scheduling in Data Analytics Systems, INFOCOM'18, section VII-C (SRS)",
    .params = ExecutorParams("4", "4", "8", "0"),
    .make = MakeExecutorPolicy,
};

const PolicyInfo kSparkStaticInfo{
    .name = "spark-static",
    .description = "COBRA's SRS: Spark static allocation, 2 containers of 1 core and 2 GB per job, held to its end",
    .source = "Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant Scheduling in Data Analytics Systems, INFOCOM'18, section VII "
              "(static scheduling in Spark 2.0); the executor baseline",
    .params = ExecutorParams("2", "1", "2", "1"),
    .make = MakeExecutorPolicy,
};

}  // namespace weft::policy::baseline
