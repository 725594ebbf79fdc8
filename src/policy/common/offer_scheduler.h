// File: policy/common/offer_scheduler.h
//
// OfferScheduler: the shared mechanism of the centralized baselines (fifo,
// fair, drf, delay, random, tetris, cp, bfs). It keeps the ready tasks in a
// ReadyPool ordered by a policy-defined key and places them the way Hadoop
// and YARN schedulers do:
//   - when tasks become ready, their group is placed at once on machines that
//     fit (first fit over the candidate machines);
//   - when a machine frees resources (a task ended, the machine came up), the
//     machine is offered to the groups in key order, and each group's front
//     task is launched there while it fits (later groups backfill what
//     earlier ones cannot use).
// A subclass defines the order (KeyFor) and may override how a machine is
// offered (Tetris scores groups per machine) or how new groups are placed
// (delay scheduling waits for locality). All in simulated time through the
// Context; no clock, no I/O.
#pragma once

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

 protected:
  // KeyFor orders a new group; smaller keys are served first.
  virtual OrderKey KeyFor(const GroupId& group) = 0;
  // OfferMachine gives `machine`'s free resources to the groups in order.
  virtual void OfferMachine(MachineId machine);
  // PlaceGroup places as many tasks of a newly ready group as fit anywhere.
  virtual void PlaceGroup(const GroupId& group);
  // OnLaunched / OnEnded let subclasses keep accounts (fair shares).
  virtual void OnLaunched(const TaskRef& /*task*/, MachineId /*machine*/) {}
  virtual void OnEnded(const TaskEnd& /*end*/) {}

  // Launch runs `task` (which must be in the pool) on `machine`, removing it
  // from the pool; false (and nothing changes) if the platform refuses.
  bool Launch(const TaskRef& task, MachineId machine);
  // LaunchFront launches the group's front task on `machine`.
  bool LaunchFront(const GroupId& group, MachineId machine) { return Launch(pool_.Front(group), machine); }
  // Full: true when `machine` has no room for the smallest demand seen.
  bool Full(MachineId machine) const;

  ReadyPool pool_;
  MachineFinder finder_;
};

}  // namespace weft::policy
