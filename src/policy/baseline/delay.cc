#include "policy/baseline/delay.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "core/time.h"
#include "fmt/format.h"
#include "policy/common/fair_share.h"

namespace weft::policy::baseline {
namespace {

// Locality levels, in the order a waiting job unlocks them.
enum Level : uint8_t { kNodeLevel = 0, kRackLevel = 1, kAnyLevel = 2 };

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
    const uint64_t first = uint64_t{job.value()} << 32;
    index_.erase(index_.lower_bound(first), index_.lower_bound(first + (uint64_t{1} << 32)));
  }

 protected:
  std::optional<TaskRef> PickTask(const GroupId& g, MachineId m) override;
  void OnLaunched(const TaskRef& task, MachineId machine) override;
  void OnPolicyTimer(uint64_t tag) override;

 private:
  // Task indices of one group, consumed from `head`; entries whose task has
  // left the pool are skipped lazily.
  struct TaskList {
    std::vector<uint32_t> tasks;
    size_t head = 0;
  };
  // Where a group's ready tasks would be local (built only for stages whose
  // tasks have preferences).
  struct GroupIndex {
    absl::flat_hash_map<uint32_t, TaskList> by_machine;
    absl::flat_hash_map<uint32_t, TaskList> by_rack;
    TaskList no_prefs;
  };
  struct JobWait {
    Level level = kNodeLevel;
    bool waiting = false;
    TimeUs since = 0;
    uint32_t episode = 0;  // tells a current wait's timers from stale ones
  };

  void Index(const TaskRange& range);
  bool StageHasPrefs(const GroupId& g);
  bool InPool(const GroupId& g, uint32_t index) const;
  std::optional<TaskRef> FirstLive(TaskList& list, const GroupId& g) const;
  Level Allowed(const JobWait& w) const;
  void StartWaiting(JobId job, JobWait& w);

  TimeUs node_wait_us_;
  TimeUs rack_wait_us_;
  std::map<uint64_t, GroupIndex> index_;  // by GroupId::Packed, so a job's groups are adjacent
  absl::flat_hash_map<uint64_t, bool> stage_has_prefs_;
  absl::flat_hash_map<uint32_t, JobWait> waits_;
};

bool DelayScheduler::StageHasPrefs(const GroupId& g) {
  auto [it, inserted] = stage_has_prefs_.try_emplace(g.Packed(), false);
  if (inserted) {
    const JobView job = ctx_.job(g.job);
    for (uint32_t i = 0; i < job.stage_tasks(g.stage) && !it->second; ++i) {
      it->second = !job.preferences(TaskRef{g.job, g.stage, i}).empty();
    }
  }
  return it->second;
}

void DelayScheduler::Index(const TaskRange& range) {
  const GroupId g{range.job, range.stage};
  if (!StageHasPrefs(g)) return;
  const JobView job = ctx_.job(range.job);
  const ClusterState& cluster = ctx_.cluster();
  GroupIndex& gi = index_[g.Packed()];
  std::vector<uint32_t> racks;
  for (uint32_t i = range.begin; i < range.end; ++i) {
    const auto prefs = job.preferences(TaskRef{range.job, range.stage, i});
    if (prefs.empty()) {
      gi.no_prefs.tasks.push_back(i);
      continue;
    }
    racks.clear();
    for (MachineId m : prefs) {
      gi.by_machine[m.value()].tasks.push_back(i);
      racks.push_back(cluster.rack(m).value());
    }
    std::sort(racks.begin(), racks.end());
    racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
    for (uint32_t r : racks) gi.by_rack[r].tasks.push_back(i);
  }
}

bool DelayScheduler::InPool(const GroupId& g, uint32_t index) const {
  const auto* ranges = pool_.ranges(g);
  if (ranges == nullptr) return false;
  // Ranges are sorted by begin: find the last one that starts at or before index.
  auto it = std::upper_bound(ranges->begin(), ranges->end(), index,
                             [](uint32_t i, const std::pair<uint32_t, uint32_t>& r) { return i < r.first; });
  return it != ranges->begin() && index < std::prev(it)->second;
}

std::optional<TaskRef> DelayScheduler::FirstLive(TaskList& list, const GroupId& g) const {
  for (; list.head < list.tasks.size(); ++list.head) {
    const uint32_t i = list.tasks[list.head];
    if (InPool(g, i)) return TaskRef{g.job, g.stage, i};
  }
  return std::nullopt;
}

Level DelayScheduler::Allowed(const JobWait& w) const {
  // A job that is not waiting yet would start now: its elapsed wait is 0
  // (so node_wait=0 unlocks rack-local at once).
  const TimeUs waited = w.waiting ? ctx_.Now() - w.since : 0;
  if (w.level == kNodeLevel) {
    if (waited >= node_wait_us_ + rack_wait_us_) return kAnyLevel;
    return waited >= node_wait_us_ ? kRackLevel : kNodeLevel;
  }
  if (w.level == kRackLevel) return waited >= rack_wait_us_ ? kAnyLevel : kRackLevel;
  return kAnyLevel;
}

void DelayScheduler::StartWaiting(JobId job, JobWait& w) {
  if (w.waiting) return;
  w.waiting = true;
  w.since = ctx_.Now();
  ++w.episode;
  // Never OfferScheduler::kRoundTag (all ones): job ids stay below 2^32 - 1.
  const uint64_t tag = (uint64_t{w.episode} << 32) | job.value();
  if (w.level == kNodeLevel) {
    ctx_.SetTimer(node_wait_us_, tag);
    ctx_.SetTimer(node_wait_us_ + rack_wait_us_, tag);
  } else {
    ctx_.SetTimer(rack_wait_us_, tag);
  }
}

void DelayScheduler::OnPolicyTimer(uint64_t tag) {
  auto it = waits_.find(static_cast<uint32_t>(tag));
  if (it == waits_.end() || !it->second.waiting || it->second.episode != (tag >> 32)) return;
  // The job's wait may have unlocked a level: offer it every machine with room.
  RequestFullRound();
}

std::optional<TaskRef> DelayScheduler::PickTask(const GroupId& g, MachineId m) {
  if (!ctx_.cluster().Fits(m, ctx_.job(g.job).demand(g.stage))) return std::nullopt;
  auto it = index_.find(g.Packed());
  if (it == index_.end()) return pool_.Front(g);  // no task of the stage has preferences
  GroupIndex& gi = it->second;
  if (auto l = gi.by_machine.find(m.value()); l != gi.by_machine.end()) {
    if (auto t = FirstLive(l->second, g)) return t;
  }
  if (auto t = FirstLive(gi.no_prefs, g)) return t;
  JobWait& w = waits_[g.job.value()];
  const Level allowed = Allowed(w);
  if (allowed >= kRackLevel) {
    if (auto l = gi.by_rack.find(ctx_.cluster().rack(m).value()); l != gi.by_rack.end()) {
      if (auto t = FirstLive(l->second, g)) return t;
    }
  }
  if (allowed >= kAnyLevel) return pool_.Front(g);
  StartWaiting(g.job, w);  // skipped: the machine goes to someone else
  return std::nullopt;
}

void DelayScheduler::OnLaunched(const TaskRef& task, MachineId machine) {
  FairShareScheduler::OnLaunched(task, machine);
  const GroupId g{task.job, task.stage};
  auto it = index_.find(g.Packed());
  if (it == index_.end()) return;
  if (pool_.count(g) == 0) index_.erase(it);  // a retry re-indexes its range
  const auto prefs = ctx_.job(task.job).preferences(task);
  if (prefs.empty()) return;  // launches without preferences leave the wait alone
  Level level = kAnyLevel;
  const RackId rack = ctx_.cluster().rack(machine);
  for (MachineId p : prefs) {
    if (p == machine) {
      level = kNodeLevel;
      break;
    }
    if (ctx_.cluster().rack(p) == rack) level = kRackLevel;
  }
  JobWait& w = waits_[task.job.value()];
  const bool was_waiting = w.waiting;
  w.level = level;
  w.waiting = false;
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
