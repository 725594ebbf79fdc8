// File: policy/common/slot_scheduler.h
//
// SlotScheduler: the plumbing shared by the slot-based cluster schedulers
// (fair-slots, ras): ready tasks in a ReadyPool in FIFO order (priority, then
// arrival), a SlotBook of the map and reduce tasks each machine and job run,
// and one decision "round" per instant. Event handlers only record what
// happened and ask for a round, a zero-delay timer (tag kRoundTag) that the
// engine delivers after everything already queued for the instant, so a
// round decides with every arrival and end of the instant known (as
// OfferScheduler does, policy/common/offer_scheduler.h). Subclasses write
// Round and may keep timers of their own (every other tag goes to
// OnPolicyTimer). No clock, no I/O. Not thread-safe; one per scheduler role.
#pragma once

#include <cstdint>

#include "policy/common/ready_pool.h"
#include "policy/common/slot_book.h"
#include "policy/roles.h"

namespace weft::policy {

class SlotScheduler : public ClusterScheduler {
 public:
  explicit SlotScheduler(Context& ctx);

  void OnTasksReady(const TaskRange& range) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineUp(MachineId machine) override;
  void OnTimer(uint64_t tag) final;

  static constexpr uint64_t kRoundTag = ~uint64_t{0};

 protected:
  // Round makes the instant's decisions.
  virtual void Round() = 0;
  virtual void OnPolicyTimer(uint64_t /*tag*/) {}
  // OnEnded: an attempt ended (after the slot book was updated).
  virtual void OnEnded(const TaskEnd& /*end*/) {}

  // RequestRound asks for a round at the current instant (at most one pending).
  void RequestRound();
  // Launch runs `task` (in the pool) on `machine` and books its slot; false
  // (nothing changes) when the platform refuses.
  bool Launch(const TaskRef& task, MachineId machine);
  SlotKind KindOf(const GroupId& group) const { return StageSlotKind(ctx_.job(group.job), group.stage); }

  ReadyPool pool_;
  SlotBook slots_;

 private:
  bool round_pending_ = false;
};

}  // namespace weft::policy
