#include "policy/common/offer_scheduler.h"

#include <algorithm>

namespace weft::policy {

OfferScheduler::OfferScheduler(Context& ctx) : ClusterScheduler(ctx), finder_(ctx.cluster()) {}

void OfferScheduler::OnTasksReady(const TaskRange& range) {
  if (range.begin >= range.end) return;
  const GroupId g{range.job, range.stage};
  finder_.NoteDemand(ctx_.job(range.job).demand(range.stage));
  pool_.Add(range, KeyFor(g));
  fresh_.push_back(g);
  RequestRound();
}

void OfferScheduler::OnTaskEnded(const TaskEnd& end) {
  OnEnded(end);
  finder_.Refresh(end.machine);
  NoteFreed(end.machine);
}

void OfferScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  pool_.RemoveJob(job, static_cast<uint32_t>(ctx_.job(job).num_stages()));
}

void OfferScheduler::OnMachineUp(MachineId machine) {
  finder_.Refresh(machine);
  NoteFreed(machine);
}

void OfferScheduler::OnMachineDown(MachineId machine) { finder_.Refresh(machine); }

void OfferScheduler::OnTimer(uint64_t tag) {
  if (tag == kRoundTag) {
    RunRound();
  } else {
    OnPolicyTimer(tag);
  }
}

void OfferScheduler::NoteFreed(MachineId machine) {
  // Nobody waits: nothing to give. Groups that become ready later in the
  // instant are placed over every candidate machine, this one included.
  if (pool_.empty()) return;
  freed_.push_back(machine);
  RequestRound();
}

void OfferScheduler::RequestRound() {
  if (round_pending_) return;
  round_pending_ = true;
  ctx_.SetTimer(0, kRoundTag);
}

void OfferScheduler::RunRound() {
  round_pending_ = false;
  // Take the instant's notes in a deterministic order: machines by id (up
  // ones: a machine that went down since has nothing to give), groups by key
  // (those whose job ended since have left the pool).
  round_freed_.swap(freed_);
  freed_.clear();
  std::sort(round_freed_.begin(), round_freed_.end());
  round_freed_.erase(std::unique(round_freed_.begin(), round_freed_.end()), round_freed_.end());
  std::erase_if(round_freed_, [&](MachineId m) { return !ctx_.cluster().up(m); });
  round_keyed_.clear();
  for (const GroupId& g : fresh_) {
    if (const OrderKey* key = pool_.key(g)) round_keyed_.emplace_back(*key, g);
  }
  fresh_.clear();
  std::sort(round_keyed_.begin(), round_keyed_.end());
  round_keyed_.erase(std::unique(round_keyed_.begin(), round_keyed_.end()), round_keyed_.end());
  round_fresh_.clear();
  for (const auto& [key, g] : round_keyed_) round_fresh_.push_back(g);
  // Round may call RequestRound (a later round at this instant) but no
  // handler runs during it, so the scratch vectors are not touched meanwhile.
  Round(round_freed_, round_fresh_);
}

void OfferScheduler::Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) {
  KeyOrderRound(freed, fresh);
}

void OfferScheduler::KeyOrderRound(std::span<const MachineId> freed, std::span<const GroupId> fresh) {
  open_.clear();
  for (MachineId m : freed) {
    if (!Full(m)) open_.push_back(m);
  }
  size_t next = 0;  // the next fresh group; the walk meets them in this order
  const ReadyPool::Ordered& ordered = pool_.ordered();
  for (auto it = ordered.begin(); !open_.empty() && it != ordered.end();) {
    const GroupId g = it->second;
    ++it;  // launching may erase g from the ordered set, never a later group
    if (next < fresh.size() && fresh[next] == g) {
      ++next;
      PlaceGroup(g);
    } else {
      for (MachineId m : open_) Fill(g, m);
    }
    std::erase_if(open_, [&](MachineId m) { return Full(m); });
  }
  // The freed machines are full (or nothing waits): the other fresh groups,
  // in key order, take what room is left anywhere.
  for (; next < fresh.size(); ++next) {
    if (pool_.count(fresh[next]) > 0) PlaceGroup(fresh[next]);
  }
}

void OfferScheduler::OfferThenPlace(std::span<const MachineId> freed, std::span<const GroupId> fresh) {
  for (MachineId m : freed) {
    if (pool_.empty()) return;
    OfferMachine(m);
  }
  for (const GroupId& g : fresh) {
    if (pool_.count(g) > 0) PlaceGroup(g);
  }
}

bool OfferScheduler::Full(MachineId machine) const { return !finder_.RoomForSmallest(machine); }

void OfferScheduler::Fill(const GroupId& g, MachineId machine) {
  const ClusterState& cluster = ctx_.cluster();
  if (pool_.count(g) == 0) return;
  const Resources& demand = ctx_.job(g.job).demand(g.stage);
  while (pool_.count(g) > 0 && cluster.Fits(machine, demand)) {
    if (!LaunchFront(g, machine)) break;
  }
}

void OfferScheduler::OfferMachine(MachineId machine) {
  for (auto it = pool_.ordered().begin(); it != pool_.ordered().end() && !Full(machine);) {
    const GroupId g = it->second;
    ++it;  // launching may erase g from the ordered set
    Fill(g, machine);
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
