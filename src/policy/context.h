// File: policy/context.h
//
// Context: everything a policy role may do or know, provided by the platform
// (sim::Engine in simulation, the daemons for real). It is the only door out
// of a policy: policies never read a clock, sleep, open files or sockets, or
// touch globals, which is what lets one policy object run unchanged in the
// simulator and the runtime, and makes every simulation replayable from a
// seed.
//
// Each role instance gets its own Context, bound to the role's Address (so
// Send knows the sender, rng() is a stream of the role's own, and actions pay
// the latency between the role and the machine they touch).
//
// Actions return a Status: a policy's decisions are checked, never trusted.
// An illegal decision (launching a task that is not ready, on a machine that
// is down or full, ...) is refused with FailedPrecondition and changes
// nothing; the platform counts refusals and reports them in the summary.
// Not thread-safe: call only from inside the role's own handlers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ids.h"
#include "core/random.h"
#include "core/time.h"
#include "model/resources.h"
#include "policy/cluster_state.h"
#include "policy/job_view.h"
#include "policy/message.h"

namespace weft::policy {

// A container: resources on one machine granted to one job, able to host
// several of the job's tasks at once (COBRA), or one at a time (executors).
struct ContainerInfo {
  ContainerId id;
  JobId job;
  MachineId machine;
  Resources size;
  Resources in_use;  // demands of the tasks running in it
  Resources used;    // what the tasks running in it really use now (measured)
  uint32_t tasks = 0;
  Address granted_by;
  TimeUs granted_us = 0;
};

// TimerId names a timer set by SetTimer, for CancelTimer. kNone names none;
// every timer a Context sets gets an id different from kNone.
enum class TimerId : uint64_t { kNone = 0 };

class Context {
 public:
  virtual ~Context() = default;

  // Identity, time and randomness.
  virtual Address self() const = 0;
  virtual TimeUs Now() const = 0;
  virtual Rng& rng() = 0;
  virtual uint32_t num_schedulers() const = 0;

  // Read-only views.
  virtual const ClusterState& cluster() const = 0;
  virtual JobView job(JobId id) const = 0;
  // Jobs that have arrived and not finished, in arrival order.
  virtual std::span<const JobId> active_jobs() const = 0;
  // The container, or nullptr when it does not exist (any more).
  virtual const ContainerInfo* container(ContainerId id) const = 0;

  // Messages and timers. A message arrives after the run's one-way latency
  // (0 between a role and itself); a timer fires after `delay` with `tag`
  // (OnTimer(tag)), unless cancelled first.
  virtual void Send(const Address& to, Message message) = 0;
  virtual TimerId SetTimer(TimeUs delay, uint64_t tag) = 0;
  // CancelTimer: the role's own timer `id` will not fire. True if it was
  // pending; false if it already fired, was cancelled, or is not this
  // role's (nothing changes then, and it is not a refused decision).
  virtual bool CancelTimer(TimerId id) = 0;

  // Launch places a ready task on a machine: its demand is reserved at once
  // and it starts when the launch reaches the machine (immediately for the
  // machine's own node agent). Fails if the task is not ready, the machine is
  // down, or the demand does not fit (unless the policy overbooks).
  virtual absl::Status Launch(const TaskRef& task, MachineId machine) = 0;
  // LaunchInContainer runs a ready task of the container's job inside it; the
  // task's demand must fit what the container has left.
  virtual absl::Status LaunchInContainer(const TaskRef& task, ContainerId container) = 0;
  // Kill stops a launched or running task; it becomes ready again (outcome
  // "killed", which does not count against the task's attempts).
  virtual absl::Status Kill(const TaskRef& task) = 0;

  // GrantContainer (cluster scheduler only) reserves `size` on `machine` for
  // `job`; the job's manager hears OnContainerGranted after the latency.
  virtual absl::StatusOr<ContainerId> GrantContainer(JobId job, MachineId machine, const Resources& size) = 0;
  // ReleaseContainer (the owning job manager, or the granting scheduler) gives
  // back an empty container; the granter hears OnContainerReleased.
  virtual absl::Status ReleaseContainer(ContainerId container) = 0;

  // StartPhase (node agents that control phases only) starts the next
  // monotask of a task running on this machine, announced by OnPhaseReady.
  virtual absl::Status StartPhase(const TaskRef& task) = 0;

  // Record notes a named value at Now() (a policy's utility of a job, a
  // queue length, ...): policies do no I/O, so the platform forwards it to
  // the run's observers and `weft sim --out` writes it to series.csv
  // (docs/results.md). `job` may be JobId() for a value of no one job. Not a
  // decision: it changes nothing and is never refused. The default records
  // nothing (platforms that keep no results).
  virtual void Record(std::string_view /*series*/, JobId /*job*/, double /*value*/) {}
};

}  // namespace weft::policy
