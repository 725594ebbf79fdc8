// The four Sparrow policies: one Policy class configured by variant, and
// their registry entries (sparrow.h).
#include "policy/sparrow/sparrow.h"

#include "policy/sparrow/node_agent.h"
#include "policy/sparrow/scheduler.h"

namespace weft::policy::sparrow {
namespace {

class SparrowPolicy final : public Policy {
 public:
  explicit SparrowPolicy(const Config& config) : config_(config) {}
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  uint32_t num_schedulers() const override { return config_.schedulers; }
  bool has_node_agents() const override { return true; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<SparrowScheduler>(ctx, config_);
  }
  std::unique_ptr<NodeAgent> MakeNodeAgent(Context& ctx, MachineId machine) override {
    return std::make_unique<SparrowNode>(ctx, machine, config_);
  }

 private:
  Config config_;
};

std::vector<ParamSpec> Specs(Variant v) {
  std::vector<ParamSpec> specs;
  if (v != Variant::kRandom) {
    specs.push_back({.name = "probe_ratio", .type = ParamType::kDouble, .default_value = "2",
                     .help = "probes per task d (fractional allowed: ceil(d*m) per batch)", .min = 1, .max = 100});
  }
  specs.push_back({.name = "schedulers", .type = ParamType::kInt, .default_value = "10",
                   .help = "independent scheduler replicas; job j is homed at replica j % schedulers", .min = 1,
                   .max = 1000});
  specs.push_back({.name = "slots", .type = ParamType::kInt, .default_value = "0",
                   .help = "tasks a node runs at once (0: its cores, at least 1)", .min = 0, .max = 1 << 20});
  if (v == Variant::kLateBinding) {
    specs.push_back({.name = "cancellation", .type = ParamType::kBool, .default_value = "false",
                     .help = "cancel a stage's outstanding reservations once all its tasks are launched"});
  }
  specs.push_back({.name = "queue", .type = ParamType::kChoice, .default_value = "fifo",
                   .help = "node-side queues (§4.2): fifo, priority (strict, per job priority) or fair "
                           "(weighted fair queuing across users)",
                   .choices = {"fifo", "priority", "fair"}});
  return specs;
}

absl::StatusOr<std::unique_ptr<Policy>> Make(Variant v, const Params& p) {
  Config c;
  c.variant = v;
  if (v != Variant::kRandom) c.probe_ratio = p.Double("probe_ratio");
  c.schedulers = static_cast<uint32_t>(p.Int("schedulers"));
  c.slots = static_cast<uint32_t>(p.Int("slots"));
  if (v == Variant::kLateBinding) c.cancellation = p.Bool("cancellation");
  const std::string& q = p.Choice("queue");
  c.queue = q == "priority" ? QueueKind::kPriority : q == "fair" ? QueueKind::kFair : QueueKind::kFifo;
  return std::make_unique<SparrowPolicy>(c);
}

}  // namespace

const PolicyInfo kSparrowRandomInfo{
    .name = "sparrow-random",
    .description = "each task queued on a uniformly random node (Sparrow Fig. 3 baseline)",
    .source = "Wendell, Scalable Scheduling for Sub-Second Parallel Jobs (Sparrow), UC Berkeley UCB/EECS-2013-79, §3.1 / Fig. 3",
    .params = Specs(Variant::kRandom),
    .make = [](const Params& p) { return Make(Variant::kRandom, p); },
};

const PolicyInfo kSparrowPerTaskInfo{
    .name = "sparrow-per-task",
    .description = "per-task sampling: probe d nodes per task, queue it on the shortest",
    .source = "Wendell, Scalable Scheduling for Sub-Second Parallel Jobs (Sparrow), UC Berkeley UCB/EECS-2013-79, §3.2",
    .params = Specs(Variant::kPerTask),
    .make = [](const Params& p) { return Make(Variant::kPerTask, p); },
};

const PolicyInfo kSparrowBatchInfo{
    .name = "sparrow-batch",
    .description = "batch sampling: probe d*m nodes for m tasks, queue them on the least loaded",
    .source = "Wendell, Scalable Scheduling for Sub-Second Parallel Jobs (Sparrow), UC Berkeley UCB/EECS-2013-79, §3.3",
    .params = Specs(Variant::kBatch),
    .make = [](const Params& p) { return Make(Variant::kBatch, p); },
};

const PolicyInfo kSparrowInfo{
    .name = "sparrow",
    .description = "batch sampling with late binding (virtual reservations), constraints, priority/fair queues",
    .source = "Wendell, Scalable Scheduling for Sub-Second Parallel Jobs (Sparrow), UC Berkeley UCB/EECS-2013-79, §3.5, §4",
    .params = Specs(Variant::kLateBinding),
    .make = [](const Params& p) { return Make(Variant::kLateBinding, p); },
};

}  // namespace weft::policy::sparrow
