#include "policy/common/offer_scheduler.h"

namespace weft::policy {

OfferScheduler::OfferScheduler(Context& ctx) : ClusterScheduler(ctx), finder_(ctx.cluster()) {}

void OfferScheduler::OnTasksReady(const TaskRange& range) {
  const GroupId g{range.job, range.stage};
  finder_.NoteDemand(ctx_.job(range.job).demand(range.stage));
  pool_.Add(range, KeyFor(g));
  PlaceGroup(g);
}

void OfferScheduler::OnTaskEnded(const TaskEnd& end) {
  OnEnded(end);
  finder_.Refresh(end.machine);
  if (ctx_.cluster().up(end.machine)) OfferMachine(end.machine);
}

void OfferScheduler::OnJobFinished(JobId job, bool /*succeeded*/) { pool_.RemoveJob(job); }

void OfferScheduler::OnMachineUp(MachineId machine) {
  finder_.Refresh(machine);
  OfferMachine(machine);
}

void OfferScheduler::OnMachineDown(MachineId machine) { finder_.Refresh(machine); }

bool OfferScheduler::Full(MachineId machine) const { return !finder_.RoomForSmallest(machine); }

void OfferScheduler::OfferMachine(MachineId machine) {
  const ClusterState& cluster = ctx_.cluster();
  for (auto it = pool_.ordered().begin(); it != pool_.ordered().end() && !Full(machine);) {
    const GroupId g = it->second;
    ++it;  // launching may erase g from the ordered set
    const Resources& demand = ctx_.job(g.job).demand(g.stage);
    while (pool_.count(g) > 0 && cluster.Fits(machine, demand)) {
      if (!LaunchFront(g, machine)) break;
    }
  }
}

void OfferScheduler::PlaceGroup(const GroupId& g) {
  const Resources& demand = ctx_.job(g.job).demand(g.stage);
  while (pool_.count(g) > 0) {
    const MachineId m = finder_.FirstFit(demand);
    if (!m.valid() || !LaunchFront(g, m)) return;
  }
}

bool OfferScheduler::Launch(const TaskRef& task, MachineId machine) {
  if (!ctx_.Launch(task, machine).ok()) return false;
  pool_.Remove(task);
  finder_.Refresh(machine);
  OnLaunched(task, machine);
  return true;
}

}  // namespace weft::policy
