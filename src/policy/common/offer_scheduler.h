// File: policy/common/offer_scheduler.h
//
// OfferScheduler: the shared mechanism of the centralized baselines (fifo,
// random, tetris, cp, bfs, and fair, drf and delay through FairShareScheduler).
// It keeps the ready tasks in a ReadyPool ordered by a policy-defined key and
// places them the way Hadoop and YARN schedulers do, once per instant:
//   - event handlers only record what happened: OnTasksReady adds the tasks
//     to the pool and notes their group as "fresh"; OnTaskEnded and
//     OnMachineUp note the machine as "freed" (only when some task waits or
//     may come: with an empty pool, fresh groups reach every machine anyway);
//   - the first note of an instant asks for a "round": a zero-delay timer
//     (tag kRoundTag), which the engine delivers after everything already
//     queued for that instant (sim/event_queue.h). So when a task ends, the
//     children it released (OnTasksReady, delivered after OnTaskEnded) are in
//     the pool before anything is decided, and a high-ranked child may take
//     the slot its parent freed;
//   - the round (Round) decides with everything known. The default walks the
//     groups in key order: a fresh group is placed anywhere (PlaceGroup, first
//     fit over the candidate machines); a waiting group is offered the freed
//     machines, in increasing id, and launches its front task there while it
//     fits. Machines that were not freed have no room for a waiting group
//     (every round leaves none that fits), so the walk ends as soon as the
//     freed machines are full and the remaining fresh groups are placed.
// Policies whose order is not the key (tetris scores groups per machine,
// random draws) use OfferThenPlace instead: each freed machine is offered
// (OfferMachine, which sees fresh groups too), then the fresh groups are
// placed. A subclass may also replace Round altogether (FairShareScheduler
// serves machines to the neediest user) and keep timers of its own: every tag
// but kRoundTag goes to OnPolicyTimer.
// Departure from Hadoop/YARN: they decide per heartbeat, in arrival order of
// the events; deciding per instant is what lets a policy's order rule over
// same-instant events. All in simulated time through the Context; no clock,
// no I/O. Not thread-safe; one per scheduler role.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "policy/common/machine_finder.h"
#include "policy/common/ready_pool.h"
#include "policy/roles.h"

namespace weft::policy {

class OfferScheduler : public ClusterScheduler {
 public:
  explicit OfferScheduler(Context& ctx);

  void OnTasksReady(const TaskRange& range) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineUp(MachineId machine) override;
  void OnMachineDown(MachineId machine) override;
  // OnTimer runs the round on kRoundTag and passes any other tag to
  // OnPolicyTimer.
  void OnTimer(uint64_t tag) final;

  // The timer tag of rounds; subclasses must not use it for their own timers.
  static constexpr uint64_t kRoundTag = ~uint64_t{0};

 protected:
  // KeyFor orders a new group; smaller keys are served first.
  virtual OrderKey KeyFor(const GroupId& group) = 0;

  // Round makes the instant's decisions. `freed`: the machines that freed
  // resources since the last round, up, in increasing id, each once. `fresh`:
  // the groups that gained ready tasks since the last round and still have
  // some, in key order, each once. Either may be empty (RequestRound).
  // Default: KeyOrderRound.
  virtual void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh);
  // KeyOrderRound: every group in key order; fresh groups are placed
  // (PlaceGroup), waiting groups take room on the freed machines.
  void KeyOrderRound(std::span<const MachineId> freed, std::span<const GroupId> fresh);
  // OfferThenPlace: OfferMachine for each freed machine, then PlaceGroup for
  // each fresh group that still has ready tasks.
  void OfferThenPlace(std::span<const MachineId> freed, std::span<const GroupId> fresh);

  // OfferMachine gives `machine`'s free resources to the groups in key order
  // (later groups backfill what earlier ones cannot use).
  virtual void OfferMachine(MachineId machine);
  // PlaceGroup places as many tasks of a fresh group as fit anywhere.
  virtual void PlaceGroup(const GroupId& group);
  // OnLaunched / OnEnded let subclasses keep accounts (fair shares).
  virtual void OnLaunched(const TaskRef& /*task*/, MachineId /*machine*/) {}
  virtual void OnEnded(const TaskEnd& /*end*/) {}
  // OnPolicyTimer receives the subclass's own timers (any tag but kRoundTag).
  virtual void OnPolicyTimer(uint64_t /*tag*/) {}

  // RequestRound asks for a round at the current instant (at most one timer
  // is pending), e.g. when a wait expired and nothing else happened.
  void RequestRound();

  // Launch runs `task` (which must be in the pool) on `machine`, removing it
  // from the pool; false (and nothing changes) if the platform refuses.
  bool Launch(const TaskRef& task, MachineId machine);
  // LaunchFront launches the group's front task on `machine`.
  bool LaunchFront(const GroupId& group, MachineId machine) { return Launch(pool_.Front(group), machine); }
  // Fill launches the group's front tasks on `machine` while they fit.
  void Fill(const GroupId& group, MachineId machine);
  // Full: true when `machine` has no room for the smallest demand seen.
  bool Full(MachineId machine) const;

  ReadyPool pool_;
  MachineFinder finder_;

 private:
  void NoteFreed(MachineId machine);
  void RunRound();

  bool round_pending_ = false;
  std::vector<MachineId> freed_;  // since the last round, unsorted
  std::vector<GroupId> fresh_;    // since the last round, unsorted
  // Scratch for RunRound and KeyOrderRound, kept to avoid allocating per round.
  std::vector<MachineId> round_freed_;
  std::vector<std::pair<OrderKey, GroupId>> round_keyed_;
  std::vector<GroupId> round_fresh_;
  std::vector<MachineId> open_;
};

}  // namespace weft::policy
