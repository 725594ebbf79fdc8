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
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ids.h"
#include "fmt/format.h"
#include "model/shuffle.h"
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
  absl::Status ActiveTask(const TaskRef& t) const {
    if (jobs_.active(t.job)) {
      const Job& job = w_.jobs[t.job.value()];
      if (t.stage < job.stages.size() && t.index < job.stages[t.stage].num_tasks) return absl::OkStatus();
    }
    return NotActive(t);
  }
  // ReadyTask: ActiveTask, and t is ready.
  absl::Status ReadyTask(const TaskRef& t) const {
    if (absl::Status s = ActiveTask(t); !s.ok()) return s;
    if (jobs_.state(t) != policy::TaskState::kReady) return NotReady(t);
    return absl::OkStatus();
  }

  // Launch: `by` may launch ready task t on machine m (in container c when
  // valid: then m is the container's machine). Sets `reserve` to what the
  // attempt reserves: its demand; its first profiled phase's; only its
  // memory when its phases are run by a node agent that controls them
  // (agent_controls_phases, asked only then). (An out parameter, not a
  // StatusOr, and inline: this is on every launch's path.)
  template <typename ControlsPhases>
  absl::Status Launch(const policy::Address& by, const TaskRef& t, MachineId m, ContainerId c,
                      ControlsPhases&& agent_controls_phases, Resources& reserve) const;
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
  // Refuse: the refusal with `message` (FailedPrecondition).
  static absl::Status Refuse(std::string message);
  // The refusals of ActiveTask and ReadyTask, out of line (the rare path).
  absl::Status NotActive(const TaskRef& t) const;
  absl::Status NotReady(const TaskRef& t) const;

  const Workload& w_;
  const policy::Policy& policy_;
  const policy::ClusterState& cluster_;
  const JobTracker& jobs_;
  const ContainerTable& containers_;
  const AttemptTable& attempts_;
};

template <typename ControlsPhases>
absl::Status DecisionChecker::Launch(const policy::Address& by, const TaskRef& t, MachineId m, ContainerId c,
                                     ControlsPhases&& agent_controls_phases, Resources& reserve) const {
  if (absl::Status s = ReadyTask(t); !s.ok()) return s;
  if (by.kind == policy::RoleKind::kJobManager && by.index != t.job.value()) {
    return Refuse("a job manager may launch only its own job's tasks");
  }
  if (!m.valid() || m.value() >= w_.cluster.size()) return Refuse("no such machine");
  if (!cluster_.up(m)) return Refuse(fmt::format("machine {} is down", w_.cluster.machine(m).name));
  if (by.kind == policy::RoleKind::kNode && by.index != m.value()) {
    return Refuse("a node agent may launch only on its own machine");
  }
  const Stage& st = w_.jobs[t.job.value()].stages[t.stage];
  for (const Phase& p : st.phases) {
    if (!p.profiled && cluster_.capacity(m).micro(p.resource) == 0) {
      return Refuse(fmt::format("machine {} has no {} for a phase of the task", w_.cluster.machine(m).name,
                                 kResourceNames[p.resource]));
    }
  }
  // A task whose phases a node agent controls reserves only its memory:
  // each phase holds its resource while it runs (sim/execution.h).
  const Resources& demand = st.TaskDemand(t.index);  // the task's own, when the stage overrides it
  reserve = demand;
  if (st.HasProfiledPhases()) {
    // A task with profiled phases reserves its current phase's demand, from
    // phase 0's at launch (sim/profiled_phases.cc).
    reserve = PhaseReservation(st, 0);
  } else if (!st.phases.empty() && agent_controls_phases(m)) {
    reserve = Resources();
    reserve.set_micro(kMem, demand.micro(kMem));
  }
  if (c.valid()) {
    const policy::ContainerInfo& info = *containers_.Find(c);
    if (info.job != t.job) return Refuse("the container belongs to another job");
    // By the resources the policy fits (`fit`): the others contend.
    if (!(info.in_use + reserve).FitsInExcept(info.size, policy_.unfitted())) {
      return Refuse("the task does not fit in the container");
    }
  } else {
    if (!reserve.FitsIn(cluster_.capacity(m))) return Refuse("the task's demand exceeds the machine's capacity");
    if (!cluster_.Fits(m, reserve, policy_.overbooked())) {
      return Refuse(fmt::format("the task does not fit in what is free on {}", w_.cluster.machine(m).name));
    }
  }
  return absl::OkStatus();
}

}  // namespace weft::sim
