#include "sim/decision_checker.h"

#include "core/status.h"
#include "fmt/format.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;
using policy::TaskState;

absl::Status DecisionChecker::Refuse(std::string message) {
  return absl::FailedPreconditionError(std::move(message));
}

absl::Status DecisionChecker::NotActive(const TaskRef& t) const {
  if (!jobs_.active(t.job)) return Refuse(fmt::format("job {} is not active", t.job.value()));
  return Refuse(fmt::format("task {}/{}/{} does not exist", t.job.value(), t.stage, t.index));
}

absl::Status DecisionChecker::NotReady(const TaskRef& t) const {
  const Job& job = w_.jobs[t.job.value()];
  return Refuse(
      fmt::format("task {}/{}/{} of job {} is not ready", job.name, job.stages[t.stage].name, t.index, job.name));
}

absl::StatusOr<MachineId> DecisionChecker::ContainerMachine(ContainerId c) const {
  const policy::ContainerInfo* info = containers_.Find(c);
  if (info == nullptr) return Refuse(fmt::format("container {} does not exist", c.value()));
  return info->machine;
}

absl::StatusOr<uint32_t> DecisionChecker::Kill(const TaskRef& t) const {
  RETURN_IF_ERROR(ActiveTask(t));
  const TaskState s = jobs_.state(t);
  if (s != TaskState::kLaunched && s != TaskState::kRunning) return Refuse("the task is not launched or running");
  return jobs_.SlotOf(t);
}

absl::Status DecisionChecker::Grant(const Address& by, JobId job, MachineId m, const Resources& size) const {
  if (by.kind != RoleKind::kScheduler) return Refuse("only a cluster scheduler grants containers");
  if (!policy_.has_job_managers()) return Refuse("the policy has no job managers to hold containers");
  if (!jobs_.active(job)) return Refuse("job not active");
  if (!m.valid() || m.value() >= w_.cluster.size() || !cluster_.up(m)) return Refuse("machine not up");
  if (size.IsZero()) return Refuse("a container needs a non-zero size");
  if (!size.FitsIn(cluster_.capacity(m))) return Refuse("the container exceeds the machine's capacity");
  if (!cluster_.Fits(m, size, policy_.overbooked())) return Refuse("the container does not fit");
  return absl::OkStatus();
}

absl::StatusOr<policy::ContainerInfo> DecisionChecker::Release(const Address& by, ContainerId c) const {
  const policy::ContainerInfo* info = containers_.Find(c);
  if (info == nullptr) return Refuse("no such container");
  if (!(by == Address::JobManager(info->job) || by == info->granted_by)) {
    return Refuse("only the container's job manager or granter may release it");
  }
  if (info->tasks > 0) return Refuse("the container still runs tasks");
  return *info;
}

absl::StatusOr<uint32_t> DecisionChecker::StartPhase(const Address& by, const TaskRef& t) const {
  if (by.kind != RoleKind::kNode) return Refuse("only node agents start phases");
  RETURN_IF_ERROR(ActiveTask(t));
  if (jobs_.state(t) != TaskState::kRunning) return Refuse("the task is not running");
  const uint32_t slot = jobs_.SlotOf(t);
  const Attempt& a = attempts_[slot];
  if (a.machine.value() != by.index) return Refuse("the task runs on another machine");
  const AttemptState state = a.state();
  if (AttemptLifecycle::Running(state) || AttemptLifecycle::Parked(state)) {
    return Refuse("the task's current phase is already running");
  }
  if (!AttemptLifecycle::PhaseReady(state)) return Refuse("the task's current phase is not ready");
  return slot;
}

}  // namespace weft::sim
