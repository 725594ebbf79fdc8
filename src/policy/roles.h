// File: policy/roles.h
//
// The three roles a policy may have (DESIGN.md): a cluster scheduler (one, or
// several replicas), an optional job manager per job, and an optional node
// agent per machine. Each reacts to events; every handler has a do-nothing
// default so a role overrides only what it uses. A role acts only through the
// Context it was built with (kept as ctx_), and talks to other roles only by
// messages. The platform calls handlers one at a time, never concurrently.
//
// Who hears what:
//   - job arrival: the job's home scheduler (replica job % replicas), and
//     the job manager's OnStart when the policy has job managers;
//   - tasks ready / task ended: the job's manager if the policy has them,
//     else its home scheduler; the node agent also hears OnTaskEnded for tasks
//     that ran on its machine;
//   - machine up/down: every scheduler replica;
//   - job finished: every scheduler replica (the job manager is then retired);
//   - container granted/lost: the job manager; released: the granter;
//   - a scheduler replica failed (SimOptions::scheduler_failures): every
//     surviving replica and every node agent (OnSchedulerDown); the jobs homed
//     at it move to the next live replica, which hears OnJobArrived again and
//     OnTasksReady for their still-ready tasks.
#pragma once

#include <cstdint>

#include "core/ids.h"
#include "metrics/records.h"
#include "policy/context.h"
#include "policy/message.h"

namespace weft::policy {

using weft::Outcome;

// TasksReady: tasks [begin, end) of one stage became runnable.
struct TaskRange {
  JobId job;
  uint32_t stage = 0;
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t size() const { return end - begin; }
};

// TaskUsage: what an attempt really used while it ran, measured (the
// execution model in simulation, the node's /proc readings for real): the
// time average and the peak, per resource, in the model's units (cores, GB,
// MB/s). Usage follows the attempt's progress rate: a task slowed by
// contention uses less per second.
struct TaskUsage {
  Resources average;
  Resources peak;
};

// TaskEnd: one attempt of a task ended.
struct TaskEnd {
  TaskRef task;
  MachineId machine;
  Outcome outcome = Outcome::kOk;
  uint32_t attempt = 0;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  ContainerId container;  // invalid unless it ran in a container
  // Whether the task will be offered again (failed or killed with attempts
  // left: a later OnTasksReady brings it back).
  bool will_retry = false;
  TaskUsage usage;  // measured over the attempt
};

class Role {
 public:
  explicit Role(Context& ctx) : ctx_(ctx) {}
  virtual ~Role() = default;
  Role(const Role&) = delete;
  Role& operator=(const Role&) = delete;

  virtual void OnMessage(const Address& /*from*/, const Message& /*message*/) {}
  virtual void OnTimer(uint64_t /*tag*/) {}

 protected:
  Context& ctx_;
};

class ClusterScheduler : public Role {
 public:
  using Role::Role;
  virtual void OnJobArrived(JobId /*job*/) {}
  virtual void OnTasksReady(const TaskRange& /*tasks*/) {}
  virtual void OnTaskEnded(const TaskEnd& /*end*/) {}
  virtual void OnJobFinished(JobId /*job*/, bool /*succeeded*/) {}
  virtual void OnMachineUp(MachineId /*machine*/) {}
  virtual void OnMachineDown(MachineId /*machine*/) {}
  virtual void OnContainerReleased(const ContainerInfo& /*container*/) {}
  virtual void OnSchedulerDown(uint32_t /*replica*/) {}
};

class JobManager : public Role {
 public:
  JobManager(Context& ctx, JobId job) : Role(ctx), job_(job) {}
  JobId job() const { return job_; }

  virtual void OnStart() {}
  virtual void OnTasksReady(const TaskRange& /*tasks*/) {}
  virtual void OnTaskEnded(const TaskEnd& /*end*/) {}
  virtual void OnContainerGranted(const ContainerInfo& /*container*/) {}
  virtual void OnContainerLost(const ContainerInfo& /*container*/) {}

 protected:
  JobId job_;
};

class NodeAgent : public Role {
 public:
  NodeAgent(Context& ctx, MachineId machine) : Role(ctx), machine_(machine) {}
  MachineId machine() const { return machine_; }

  virtual void OnStart() {}
  virtual void OnTaskEnded(const TaskEnd& /*end*/) {}
  // ControlsPhases: when true, every monotask of a task with phases waits in
  // this agent's hands (OnPhaseReady, from phase 0 when the task arrives)
  // until it calls ctx_.StartPhase (Ursa's per-resource queues); when false
  // the platform runs phases back to back.
  virtual bool ControlsPhases() const { return false; }
  virtual void OnPhaseReady(const TaskRef& /*task*/, uint32_t /*phase*/) {}
  // OnPhaseEnded: phase `phase` of a task running on this machine finished
  // (heard before the next phase's OnPhaseReady, whoever starts phases).
  virtual void OnPhaseEnded(const TaskRef& /*task*/, uint32_t /*phase*/) {}
  virtual void OnSchedulerDown(uint32_t /*replica*/) {}

 protected:
  MachineId machine_;
};

}  // namespace weft::policy
