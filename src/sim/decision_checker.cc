#include "sim/decision_checker.h"

#include "core/status.h"
#include "fmt/format.h"
#include "model/shuffle.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;
using policy::TaskState;

namespace {
absl::Status Refusal(std::string message) { return absl::FailedPreconditionError(std::move(message)); }
}  // namespace

absl::Status DecisionChecker::ActiveTask(const TaskRef& t) const {
  if (!jobs_.active(t.job)) return Refusal(fmt::format("job {} is not active", t.job.value()));
  const Job& job = w_.jobs[t.job.value()];
  if (t.stage >= job.stages.size() || t.index >= job.stages[t.stage].num_tasks) {
    return Refusal(fmt::format("task {}/{}/{} does not exist", t.job.value(), t.stage, t.index));
  }
  return absl::OkStatus();
}

absl::Status DecisionChecker::ReadyTask(const TaskRef& t) const {
  RETURN_IF_ERROR(ActiveTask(t));
  const Job& job = w_.jobs[t.job.value()];
  if (jobs_.state(t) != TaskState::kReady) {
    return Refusal(
        fmt::format("task {}/{}/{} of job {} is not ready", job.name, job.stages[t.stage].name, t.index, job.name));
  }
  return absl::OkStatus();
}

absl::StatusOr<Resources> DecisionChecker::Launch(const Address& by, const TaskRef& t, MachineId m, ContainerId c,
                                                  absl::FunctionRef<bool(MachineId)> agent_controls_phases) const {
  RETURN_IF_ERROR(ReadyTask(t));
  if (by.kind == RoleKind::kJobManager && by.index != t.job.value()) {
    return Refusal("a job manager may launch only its own job's tasks");
  }
  if (!m.valid() || m.value() >= w_.cluster.size()) return Refusal("no such machine");
  if (!cluster_.up(m)) return Refusal(fmt::format("machine {} is down", w_.cluster.machine(m).name));
  if (by.kind == RoleKind::kNode && by.index != m.value()) {
    return Refusal("a node agent may launch only on its own machine");
  }
  const Stage& st = w_.jobs[t.job.value()].stages[t.stage];
  for (const Phase& p : st.phases) {
    if (!p.profiled && cluster_.capacity(m).micro(p.resource) == 0) {
      return Refusal(fmt::format("machine {} has no {} for a phase of the task", w_.cluster.machine(m).name,
                                 kResourceNames[p.resource]));
    }
  }
  // A task whose phases a node agent controls reserves only its memory:
  // each phase holds its resource while it runs (sim/execution.h).
  const Resources& demand = st.TaskDemand(t.index);  // the task's own, when the stage overrides it
  Resources reserve = demand;
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
    if (info.job != t.job) return Refusal("the container belongs to another job");
    if (!(info.in_use + reserve).FitsIn(info.size)) return Refusal("the task does not fit in the container");
  } else {
    if (!reserve.FitsIn(cluster_.capacity(m))) return Refusal("the task's demand exceeds the machine's capacity");
    if (!cluster_.Fits(m, reserve, policy_.overbooked())) {
      return Refusal(fmt::format("the task does not fit in what is free on {}", w_.cluster.machine(m).name));
    }
  }
  return reserve;
}

absl::StatusOr<MachineId> DecisionChecker::ContainerMachine(ContainerId c) const {
  const policy::ContainerInfo* info = containers_.Find(c);
  if (info == nullptr) return Refusal(fmt::format("container {} does not exist", c.value()));
  return info->machine;
}

absl::StatusOr<uint32_t> DecisionChecker::Kill(const TaskRef& t) const {
  RETURN_IF_ERROR(ActiveTask(t));
  const TaskState s = jobs_.state(t);
  if (s != TaskState::kLaunched && s != TaskState::kRunning) return Refusal("the task is not launched or running");
  return jobs_.SlotOf(t);
}

absl::Status DecisionChecker::Grant(const Address& by, JobId job, MachineId m, const Resources& size) const {
  if (by.kind != RoleKind::kScheduler) return Refusal("only a cluster scheduler grants containers");
  if (!policy_.has_job_managers()) return Refusal("the policy has no job managers to hold containers");
  if (!jobs_.active(job)) return Refusal("job not active");
  if (!m.valid() || m.value() >= w_.cluster.size() || !cluster_.up(m)) return Refusal("machine not up");
  if (size.IsZero()) return Refusal("a container needs a non-zero size");
  if (!size.FitsIn(cluster_.capacity(m))) return Refusal("the container exceeds the machine's capacity");
  if (!cluster_.Fits(m, size, policy_.overbooked())) return Refusal("the container does not fit");
  return absl::OkStatus();
}

absl::StatusOr<policy::ContainerInfo> DecisionChecker::Release(const Address& by, ContainerId c) const {
  const policy::ContainerInfo* info = containers_.Find(c);
  if (info == nullptr) return Refusal("no such container");
  if (!(by == Address::JobManager(info->job) || by == info->granted_by)) {
    return Refusal("only the container's job manager or granter may release it");
  }
  if (info->tasks > 0) return Refusal("the container still runs tasks");
  return *info;
}

absl::StatusOr<uint32_t> DecisionChecker::StartPhase(const Address& by, const TaskRef& t) const {
  if (by.kind != RoleKind::kNode) return Refusal("only node agents start phases");
  RETURN_IF_ERROR(ActiveTask(t));
  if (jobs_.state(t) != TaskState::kRunning) return Refusal("the task is not running");
  const uint32_t slot = jobs_.SlotOf(t);
  const Attempt& a = attempts_[slot];
  if (a.machine.value() != by.index) return Refusal("the task runs on another machine");
  if (a.segment_running || a.parked) return Refusal("the task's current phase is already running");
  return slot;
}

}  // namespace weft::sim
