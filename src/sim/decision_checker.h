// File: sim/decision_checker.h (internal to sim/)
//
// DecisionChecker: whether a policy's decision may be carried out, as a
// function of the state it reads (the workload, the policy's declarations,
// the cluster's reservations, the job tracker, the containers, the attempts),
// which it never changes. Each Check returns what the engine needs to apply
// the decision, or the refusal (FailedPrecondition, with the message the
// deciding role gets); the engine counts refusals and applies what passed.
// The order of the checks is part of the contract: a decision wrong in two
// ways is refused for the first.
// Not thread-safe; reads the engine's parts, owned by one engine.
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ids.h"
#include "model/workload.h"
#include "policy/cluster_state.h"
#include "policy/context.h"
#include "policy/policy.h"
#include "sim/attempt_table.h"
#include "sim/container_table.h"
#include "sim/job_tracker.h"

namespace weft::sim {

class DecisionChecker {
 public:
  // Every part outlives the checker.
  DecisionChecker(const Workload& workload, const policy::Policy& policy, const policy::ClusterState& cluster,
                  const JobTracker& jobs, const ContainerTable& containers, const AttemptTable& attempts)
      : w_(workload), policy_(policy), cluster_(cluster), jobs_(jobs), containers_(containers), attempts_(attempts) {}

  // ActiveTask: t exists and its job is active.
  absl::Status ActiveTask(const TaskRef& t) const;
  // ReadyTask: ActiveTask, and t is ready.
  absl::Status ReadyTask(const TaskRef& t) const;

  // Launch: `by` may launch ready task t on machine m (in container c when
  // valid: then m is the container's machine). Returns what the attempt
  // reserves: its demand; its first profiled phase's; only its memory when
  // its phases are run by a node agent that controls them
  // (agent_controls_phases, asked only then).
  absl::StatusOr<Resources> Launch(const policy::Address& by, const TaskRef& t, MachineId m, ContainerId c,
                                   absl::FunctionRef<bool(MachineId)> agent_controls_phases) const;
  // ContainerMachine: the machine of container c, which must exist.
  absl::StatusOr<MachineId> ContainerMachine(ContainerId c) const;
  // Kill: t is launched or running; returns its attempt's slot.
  absl::StatusOr<uint32_t> Kill(const TaskRef& t) const;
  // Grant: `by` may grant `job` a container of `size` on machine m.
  absl::Status Grant(const policy::Address& by, JobId job, MachineId m, const Resources& size) const;
  // Release: `by` may release container c; returns its record.
  absl::StatusOr<policy::ContainerInfo> Release(const policy::Address& by, ContainerId c) const;
  // StartPhase: node agent `by` may start the current phase of t, running on
  // its machine and not in a phase now; returns the attempt's slot.
  absl::StatusOr<uint32_t> StartPhase(const policy::Address& by, const TaskRef& t) const;

 private:
  const Workload& w_;
  const policy::Policy& policy_;
  const policy::ClusterState& cluster_;
  const JobTracker& jobs_;
  const ContainerTable& containers_;
  const AttemptTable& attempts_;
};

}  // namespace weft::sim
