#include "policy/common/slot_scheduler.h"

namespace weft::policy {

SlotScheduler::SlotScheduler(Context& ctx) : ClusterScheduler(ctx), slots_(ctx.cluster().size()) {}

void SlotScheduler::OnTasksReady(const TaskRange& range) {
  pool_.Add(range, FifoKey(ctx_.job(range.job), range.stage));
  RequestRound();
}

void SlotScheduler::OnTaskEnded(const TaskEnd& end) {
  slots_.End(end.task.job, end.machine, KindOf({end.task.job, end.task.stage}));
  OnEnded(end);
  RequestRound();
}

void SlotScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  pool_.RemoveJob(job);
  RequestRound();
}

void SlotScheduler::OnMachineUp(MachineId /*machine*/) { RequestRound(); }

void SlotScheduler::OnTimer(uint64_t tag) {
  if (tag != kRoundTag) {
    OnPolicyTimer(tag);
    return;
  }
  round_pending_ = false;
  Round();
}

void SlotScheduler::RequestRound() {
  if (round_pending_) return;
  round_pending_ = true;
  ctx_.SetTimer(0, kRoundTag);
}

bool SlotScheduler::Launch(const TaskRef& task, MachineId machine) {
  if (!ctx_.Launch(task, machine).ok()) return false;
  pool_.Remove(task);
  slots_.Start(task.job, machine, KindOf({task.job, task.stage}));
  return true;
}

}  // namespace weft::policy
