// File: runtime/node/agent_host.h
//
// AgentHost: a policy's node agent, running in `weftd node` (the role-to-role
// channel of docs/runtime.md). The scheduler forwards the mail its engine
// would have delivered to the agent (start, messages, ends of tasks on this
// machine, a dead scheduler replica), with the descriptions of the jobs the
// mail is about; the agent answers through a Context of its own, whose
// messages and launches go back to the scheduler as AgentActions.
//
// What a hosted agent can know and do (RemoteContext):
//   - the cluster's machines and capacities; of its own machine, what the
//     launches it made itself hold (allocated, running) until their end, or
//     the scheduler's refusal, comes back;
//   - each job it has heard of: description, user, priority, weight,
//     demands, and whether it has ended (JOB_ENDED: finished(), and it
//     leaves active_jobs()); not the job's per-task progress elsewhere.
//     An ended job's description is dropped once the agent's launches of it
//     have ended (memory follows the jobs in flight); the job then shows as
//     finished with no stages or tasks, like a job the scheduler released;
//   - Send to any role; SetTimer and CancelTimer (local, on the node's clock); Launch on its
//     own machine and Kill, sent to the scheduler, which checks them as any
//     decision and answers a refused launch with LAUNCH_REFUSED (the agent
//     then hears OnTaskEnded with outcome killed, as for a task that could
//     not run); a kill that happens comes back as the task's end.
//   - phases, for an agent that ControlsPhases: it hears OnPhaseReady and
//     OnPhaseEnded (PHASE_READY, PHASE_ENDED mail) as in simulation, and its
//     StartPhase goes to the scheduler as an action, checked there as any
//     StartPhase; the node then runs the phase (docs/runtime.md, "Phases").
//     A launch it makes of a phased task holds memory only, as the engine's;
//   - containers are not available (Unimplemented): no policy with node
//     agents uses them yet.
//   - With several scheduler daemons sharing the node (replica_ids.h), job
//     ids and scheduler replica numbers are global, num_schedulers() counts
//     every daemon's replicas, and Now() follows one daemon's clock.
// Not thread-safe: the node daemon's main thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "policy/policy.h"
#include "policy/registry.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class AgentHost {
 public:
  using Clock = std::chrono::steady_clock;

  // Create builds the policy and the agent's view of the cluster from a
  // START mail's setup; InvalidArgument if the policy has no node agents or
  // the setup is malformed.
  static absl::StatusOr<std::unique_ptr<AgentHost>> Create(const v1::AgentSetup& setup);
  ~AgentHost();

  // Deliver hands one mail to the agent (START builds a fresh agent).
  // stamp_clock: set the agent's clock from the mail's (the agent follows
  // one scheduler daemon's clock when several share the node).
  absl::Status Deliver(const v1::AgentMail& mail, bool stamp_clock = true);
  // Compatible: a START from another scheduler replica's daemon describes
  // the same policy, parameters and number of replicas as this agent's.
  bool Compatible(const v1::AgentSetup& setup) const;
  // SchedulerLost: the daemon that is replica `daemon` of `daemons` is gone
  // (its stream ended): the agent hears OnSchedulerDown for each of its
  // scheduler replicas (replica_ids.h), then the launches it made for its
  // jobs are off (OnTaskEnded, killed).
  void SchedulerLost(uint32_t daemon, uint32_t daemons);
  // RefuseLaunch: a launch the agent made could not be sent (its daemon is
  // away); it hears the task's end as if the scheduler had refused it.
  void RefuseLaunch(const TaskRef& task);
  // FireTimers runs the agent's timers that are due.
  void FireTimers();
  // NextTimer: when the next timer is due, if any.
  std::optional<Clock::time_point> NextTimer() const;
  // TakeActions: the messages and launches the agent made since the last call.
  v1::AgentActions TakeActions();
  // held_jobs: jobs whose description the agent holds (not ended, or ended
  // with launches of it still here).
  size_t held_jobs() const;

 private:
  class RemoteContext;
  AgentHost() = default;

  policy::BuiltPolicy built_;
  v1::AgentSetup setup_;
  MachineId machine_;
  std::unique_ptr<RemoteContext> context_;
  std::unique_ptr<policy::NodeAgent> agent_;
};

}  // namespace weft::runtime
