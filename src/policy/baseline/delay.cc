#include "policy/baseline/delay.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "core/time.h"
#include "fmt/format.h"
#include "policy/common/fair_share.h"
#include "policy/common/locality_wait.h"

namespace weft::policy::baseline {
namespace {

class DelayScheduler final : public FairShareScheduler {
 public:
  DelayScheduler(Context& ctx, TimeUs node_wait_us, TimeUs rack_wait_us)
      : FairShareScheduler(ctx, CpuShare), node_wait_us_(node_wait_us), rack_wait_us_(rack_wait_us) {}

  void OnTasksReady(const TaskRange& range) override {
    Index(range);
    FairShareScheduler::OnTasksReady(range);
  }

  void OnJobFinished(JobId job, bool succeeded) override {
    FairShareScheduler::OnJobFinished(job, succeeded);
    waits_.erase(job.value());
    index_.EraseJob(job);
  }

 protected:
  std::optional<TaskRef> PickTask(const GroupId& g, MachineId m) override;
  void OnLaunched(const TaskRef& task, MachineId machine) override;
  void OnPolicyTimer(uint64_t tag) override;

 private:
  void Index(const TaskRange& range) { index_.Index(range, ctx_.job(range.job), ctx_.cluster()); }
  void StartWaiting(JobId job, LocalityWait& w);

  TimeUs node_wait_us_;
  TimeUs rack_wait_us_;
  LocalityIndex index_;
  absl::flat_hash_map<uint32_t, LocalityWait> waits_;  // one wait per job, as in the paper
};

void DelayScheduler::StartWaiting(JobId job, LocalityWait& w) {
  if (!w.Start(ctx_.Now())) return;
  // Never OfferScheduler::kRoundTag (all ones): job ids stay below 2^32 - 1.
  const uint64_t tag = (uint64_t{w.episode} << 32) | job.value();
  for (TimeUs delay : w.Deadlines(node_wait_us_, rack_wait_us_)) ctx_.SetTimer(delay, tag);
}

void DelayScheduler::OnPolicyTimer(uint64_t tag) {
  auto it = waits_.find(static_cast<uint32_t>(tag));
  if (it == waits_.end() || !it->second.waiting || it->second.episode != (tag >> 32)) return;
  // The job's wait may have unlocked a level: offer it every machine with room.
  RequestFullRound();
}

std::optional<TaskRef> DelayScheduler::PickTask(const GroupId& g, MachineId m) {
  if (!ctx_.cluster().Fits(m, ctx_.job(g.job).demand(g.stage))) return std::nullopt;
  if (!index_.Has(g)) return pool_.Front(g);  // no task of the stage has preferences
  if (auto t = index_.NodeLocal(g, m, pool_)) return t;
  if (auto t = index_.WithoutPrefs(g, pool_)) return t;
  LocalityWait& w = waits_[g.job.value()];
  const LocalityLevel allowed = w.Allowed(ctx_.Now(), node_wait_us_, rack_wait_us_);
  if (allowed >= LocalityLevel::kRack) {
    if (auto t = index_.RackLocal(g, ctx_.cluster().rack(m), pool_)) return t;
  }
  if (allowed >= LocalityLevel::kAny) return pool_.Front(g);
  StartWaiting(g.job, w);  // skipped: the machine goes to someone else
  return std::nullopt;
}

void DelayScheduler::OnLaunched(const TaskRef& task, MachineId machine) {
  FairShareScheduler::OnLaunched(task, machine);
  const GroupId g{task.job, task.stage};
  if (!index_.Has(g)) return;
  if (pool_.count(g) == 0) index_.Erase(g);  // a retry re-indexes its range
  const auto prefs = ctx_.job(task.job).preferences(task);
  if (prefs.empty()) return;  // launches without preferences leave the wait alone
  LocalityWait& w = waits_[task.job.value()];
  const bool was_waiting = w.waiting;
  w.Launched(LevelOf(prefs, machine, ctx_.cluster()));
  // A launch elsewhere restarts the job's wait rather than ending it when the
  // job had skipped tasks: those may fit only on a machine that is idle now
  // and will never be freed again, so the new wait's timers must still bring
  // the job back to it (regression: random workload 316 stalled).
  if (was_waiting) StartWaiting(task.job, w);
}

class DelayPolicy final : public Policy {
 public:
  DelayPolicy(TimeUs node_wait_us, TimeUs rack_wait_us) : node_wait_us_(node_wait_us), rack_wait_us_(rack_wait_us) {}
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<DelayScheduler>(ctx, node_wait_us_, rack_wait_us_);
  }

 private:
  TimeUs node_wait_us_;
  TimeUs rack_wait_us_;
};

absl::StatusOr<std::unique_ptr<Policy>> MakeDelay(const Params& params) {
  auto node_wait = SecondsToUs(params.Double("node_wait"));
  if (!node_wait.ok()) return absl::InvalidArgumentError(fmt::format("node_wait: {}", StatusMessage(node_wait.status())));
  auto rack_wait = SecondsToUs(params.Double("rack_wait"));
  if (!rack_wait.ok()) return absl::InvalidArgumentError(fmt::format("rack_wait: {}", StatusMessage(rack_wait.status())));
  return std::make_unique<DelayPolicy>(*node_wait, *rack_wait);
}

}  // namespace

const PolicyInfo kDelayInfo{
    .name = "delay",
    .description = "fair, plus delay scheduling: jobs wait up to node/rack thresholds for local tasks",
    .source = "Zaharia et al., Delay Scheduling, EuroSys'10, sections 3 and 5",
    .params = {{.name = "node_wait",
                .type = ParamType::kDouble,
                .default_value = "3",
                .help = "seconds a job waits for a node-local task before it may run rack-local ones",
                .min = 0,
                .max = 1e9},
               {.name = "rack_wait",
                .type = ParamType::kDouble,
                .default_value = "3",
                .help = "further seconds before it may run tasks anywhere",
                .min = 0,
                .max = 1e9}},
    .make = MakeDelay,
};

}  // namespace weft::policy::baseline
