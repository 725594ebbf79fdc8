// File: policy/common/slot_scheduler.h
//
// SlotScheduler: an OfferScheduler (policy/common/offer_scheduler.h) for the
// slot-based cluster schedulers (fair-slots, ras): ready tasks in FIFO order
// (priority, then arrival), one decision round per instant, and a SlotBook
// of the map and reduce tasks each machine and job run, kept from launches
// and ends. Subclasses write SlotRound, which decides from the whole state
// (every machine, every ready group) rather than from the instant's freed
// machines and fresh groups. No clock, no I/O. Not thread-safe; one per
// scheduler role.
#pragma once

#include <span>

#include "policy/common/offer_scheduler.h"
#include "policy/common/slot_book.h"

namespace weft::policy {

class SlotScheduler : public OfferScheduler {
 public:
  explicit SlotScheduler(Context& ctx) : OfferScheduler(ctx), slots_(ctx.cluster().size()) {}

 protected:
  // SlotRound makes the instant's decisions.
  virtual void SlotRound() = 0;
  // OnSlotEnded: an attempt ended (after the slot book was updated).
  virtual void OnSlotEnded(const TaskEnd& /*end*/) {}

  SlotKind KindOf(const GroupId& group) const { return StageSlotKind(ctx_.job(group.job), group.stage); }

  SlotBook slots_;

 private:
  OrderKey KeyFor(const GroupId& group) final { return FifoKey(ctx_.job(group.job), group.stage); }
  void Round(std::span<const MachineId> /*freed*/, std::span<const GroupId> /*fresh*/) final { SlotRound(); }
  void OnLaunched(const TaskRef& task, MachineId machine) final {
    slots_.Start(task.job, machine, KindOf({task.job, task.stage}));
  }
  void OnEnded(const TaskEnd& end) final {
    slots_.End(end.task.job, end.machine, KindOf({end.task.job, end.task.stage}));
    OnSlotEnded(end);
  }
};

}  // namespace weft::policy
