#include "policy/baseline/fair_slots.h"

#include <array>
#include <map>
#include <utility>

#include "policy/common/slot_scheduler.h"

namespace weft::policy::baseline {
namespace {

struct Slots {
  uint32_t map = 4;
  uint32_t reduce = 2;
  uint32_t of(SlotKind k) const { return k == SlotKind::kMap ? map : reduce; }
};

class FairSlotsScheduler final : public SlotScheduler {
 public:
  FairSlotsScheduler(Context& ctx, Slots slots) : SlotScheduler(ctx), slots_per_machine_(slots) {}

 private:
  void SlotRound() override {
    if (pool_.empty()) return;
    const ClusterState& cluster = ctx_.cluster();
    // Launches only take groups out of the pool: once no group of a kind is
    // left, none comes back this round, and the remaining machines need not
    // look for one (a round otherwise costs machines x groups).
    std::array<bool, kNumSlotKinds> none_left = {false, false};
    for (uint32_t i = 0; i < cluster.size(); ++i) {
      const MachineId m(i);
      if (!cluster.up(m)) continue;
      for (SlotKind kind : {SlotKind::kMap, SlotKind::kReduce}) {
        bool& exhausted = none_left[static_cast<int>(kind)];
        while (!exhausted && slots_.on_machine(m, kind) < slots_per_machine_.of(kind)) {
          const GroupId* group = NeediestGroup(kind);
          if (group == nullptr) {
            exhausted = true;
            break;
          }
          const JobId job = group->job;
          if (!Launch(pool_.Front(*group), m)) break;  // `group` may be gone now
          ++running_[ctx_.job(job).user().value()][static_cast<int>(kind)];
        }
      }
      if (pool_.empty() || (none_left[0] && none_left[1])) return;
    }
  }

  // NeediestGroup: a group of `kind` of the pool (user) running the fewest
  // tasks of that kind, and in it of the job running the fewest (Hadoop's
  // fair sharing between pools, then between a pool's jobs); ties to the
  // FIFO-first, as the pool is walked in FIFO order.
  const GroupId* NeediestGroup(SlotKind kind) {
    const GroupId* best = nullptr;
    std::pair<uint32_t, uint32_t> best_running;
    for (const auto& [key, group] : pool_.ordered()) {
      if (KindOf(group) != kind) continue;
      const std::pair<uint32_t, uint32_t> running = {Running(ctx_.job(group.job).user().value(), kind),
                                                     slots_.of_job(group.job, kind)};
      if (best == nullptr || running < best_running) {
        best = &group;
        best_running = running;
      }
    }
    return best;
  }

  uint32_t Running(uint32_t user, SlotKind kind) const {
    auto it = running_.find(user);
    return it == running_.end() ? 0 : it->second[static_cast<int>(kind)];
  }

  void OnSlotEnded(const TaskEnd& end) override {
    --running_[ctx_.job(end.task.job).user().value()][static_cast<int>(KindOf({end.task.job, end.task.stage}))];
  }

  Slots slots_per_machine_;
  std::map<uint32_t, std::array<uint32_t, kNumSlotKinds>> running_;  // per user, per kind
};

class FairSlotsPolicy final : public Policy {
 public:
  explicit FairSlotsPolicy(Slots slots) : slots_(slots) {}
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  ResourceMask overbooked_by_design() const override { return kAllResources; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<FairSlotsScheduler>(ctx, slots_);
  }

 private:
  Slots slots_;
};

}  // namespace

const PolicyInfo kFairSlotsInfo{
    .name = "fair-slots",
    .description = "Hadoop 1 Fair Scheduler: fixed map and reduce slots per machine whatever tasks use, shared fairly "
                   "between users' pools (overbooks every resource)",
    .source = "Polo et al., Resource-aware Adaptive Scheduling for MapReduce Clusters, Middleware'11, section 4",
    .params = {{.name = "map_slots",
                .type = ParamType::kInt,
                .default_value = "4",
                .help = "map slots per machine (the paper's best static value is 4)",
                .min = 1,
                .max = 1024},
               {.name = "reduce_slots",
                .type = ParamType::kInt,
                .default_value = "2",
                .help = "reduce slots per machine (Hadoop's default)",
                .min = 1,
                .max = 1024}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      return std::make_unique<FairSlotsPolicy>(
          Slots{static_cast<uint32_t>(p.Int("map_slots")), static_cast<uint32_t>(p.Int("reduce_slots"))});
    },
};

}  // namespace weft::policy::baseline
