// The policies' actions: each decision is validated before it changes
// anything; a refused decision returns FailedPrecondition, is counted, and
// leaves the simulation as it was.

#include <algorithm>

#include "core/status.h"
#include "fmt/format.h"
#include "model/shuffle.h"
#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;
using policy::TaskState;

TimeUs SimContext::Now() const { return engine_.Now(); }
uint32_t SimContext::num_schedulers() const { return engine_.num_schedulers(); }
const policy::ClusterState& SimContext::cluster() const { return engine_.cluster(); }
policy::JobView SimContext::job(JobId id) const { return engine_.JobViewOf(id); }
std::span<const JobId> SimContext::active_jobs() const { return engine_.active_jobs(); }
const policy::ContainerInfo* SimContext::container(ContainerId id) const { return engine_.containers().Find(id); }
void SimContext::Send(const Address& to, policy::Message message) { engine_.Send(self_, to, message); }
policy::TimerId SimContext::SetTimer(TimeUs delay, uint64_t tag) { return engine_.SetTimer(self_, delay, tag); }
bool SimContext::CancelTimer(policy::TimerId id) { return engine_.CancelTimer(self_, id); }
absl::Status SimContext::Launch(const TaskRef& task, MachineId machine) {
  return engine_.DoLaunch(self_, task, machine, ContainerId());
}
absl::Status SimContext::LaunchInContainer(const TaskRef& task, ContainerId container) {
  return engine_.DoLaunchInContainer(self_, task, container);
}
absl::Status SimContext::Kill(const TaskRef& task) { return engine_.DoKill(task); }
absl::StatusOr<ContainerId> SimContext::GrantContainer(JobId job, MachineId machine, const Resources& size) {
  return engine_.DoGrant(self_, job, machine, size);
}
absl::Status SimContext::ReleaseContainer(ContainerId container) { return engine_.DoRelease(self_, container); }
absl::Status SimContext::StartPhase(const TaskRef& task) { return engine_.DoStartPhase(self_, task); }
void SimContext::Record(std::string_view series, JobId job, double value) { engine_.Record(series, job, value); }

void EngineCore::Send(const Address& from, const Address& to, policy::Message message) {
  ++stats_.messages;
  mailbox_.PostMessage(from, to, message, DelayTo(from, to));
}

policy::TimerId EngineCore::SetTimer(const Address& by, TimeUs delay, uint64_t tag) {
  return mailbox_.PostTimer(by, tag, std::max<TimeUs>(0, delay));
}

bool EngineCore::CancelTimer(const Address& by, policy::TimerId id) { return mailbox_.CancelTimer(by, id); }

void EngineCore::Record(std::string_view series, JobId job, double value) {
  const SeriesPoint point{queue_.now(), series, job, value};
  for (RunObserver* o : observers_) o->OnSeries(point);
}

absl::Status EngineCore::DoLaunchInContainer(const Address& by, const TaskRef& t, ContainerId c) {
  const policy::ContainerInfo* info = containers_.Find(c);
  if (info == nullptr) return Refuse(fmt::format("container {} does not exist", c.value()));
  return DoLaunch(by, t, info->machine, c);
}

absl::Status EngineCore::Refuse(std::string message) {
  ++stats_.refused_decisions;
  return absl::FailedPreconditionError(message);
}

absl::Status EngineCore::CheckActiveTask(const TaskRef& t) const {
  if (!t.job.valid() || t.job.value() >= jobs_.size() || !jobs_[t.job.value()].active) {
    return absl::FailedPreconditionError(fmt::format("job {} is not active", t.job.value()));
  }
  const Job& job = w_.jobs[t.job.value()];
  if (t.stage >= job.stages.size() || t.index >= job.stages[t.stage].num_tasks) {
    return absl::FailedPreconditionError(
        fmt::format("task {}/{}/{} does not exist", t.job.value(), t.stage, t.index));
  }
  return absl::OkStatus();
}

absl::Status EngineCore::CheckReadyTask(const TaskRef& t) const {
  RETURN_IF_ERROR(CheckActiveTask(t));
  const Job& job = w_.jobs[t.job.value()];
  if (jobs_[t.job.value()].progress->state(t) != TaskState::kReady) {
    return absl::FailedPreconditionError(
        fmt::format("task {}/{}/{} of job {} is not ready", job.name, job.stages[t.stage].name, t.index, job.name));
  }
  return absl::OkStatus();
}

absl::Status EngineCore::DoLaunch(const Address& by, const TaskRef& t, MachineId m, ContainerId c) {
  if (absl::Status s = CheckReadyTask(t); !s.ok()) return Refuse(std::string(s.message()));
  if (by.kind == RoleKind::kJobManager && by.index != t.job.value()) {
    return Refuse("a job manager may launch only its own job's tasks");
  }
  if (!m.valid() || m.value() >= w_.cluster.size()) return Refuse("no such machine");
  if (!cluster_.up(m)) return Refuse(fmt::format("machine {} is down", w_.cluster.machine(m).name));
  if (by.kind == RoleKind::kNode && by.index != m.value()) {
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
  Resources reserve = demand;
  if (st.HasProfiledPhases()) {
    // A task with profiled phases reserves its current phase's demand, from
    // phase 0's at launch (sim/profiled_phases.cc).
    reserve = PhaseReservation(st, 0);
  } else if (!st.phases.empty() && AgentControlsPhases(m)) {
    reserve = Resources();
    reserve.set_micro(kMem, demand.micro(kMem));
  }
  if (c.valid()) {
    const policy::ContainerInfo& info = *containers_.Find(c);
    if (info.job != t.job) return Refuse("the container belongs to another job");
    if (!(info.in_use + reserve).FitsIn(info.size)) return Refuse("the task does not fit in the container");
    containers_.AddTask(c, reserve);
  } else {
    if (!reserve.FitsIn(cluster_.capacity(m))) return Refuse("the task's demand exceeds the machine's capacity");
    if (!cluster_.Fits(m, reserve, policy_.overbooked())) {
      return Refuse(fmt::format("the task does not fit in what is free on {}", w_.cluster.machine(m).name));
    }
    cluster_.Allocate(m, reserve);
  }
  JobRun& jr = jobs_[t.job.value()];
  const uint64_t k = jr.progress->stage_offset[t.stage] + t.index;
  policy::StageProgress& sp = jr.progress->stages[t.stage];
  jr.progress->state(t) = TaskState::kLaunched;
  --sp.ready;
  ++sp.running;
  const uint32_t slot = attempts_.New(m);
  Attempt& a = attempts_[slot];
  a.task = t;
  a.container = c;
  a.attempt_no = jr.attempts[k];
  if (jr.attempts[k] < 255) ++jr.attempts[k];
  a.ready_us = jr.task_ready_us.empty() ? jr.stage_ready_us[t.stage] : jr.task_ready_us[k];
  a.demand = reserve;
  a.reserved = reserve;
  a.usage = st.TaskUsage(t.index);
  jr.slot[k] = slot;
  cluster_.AddRunning(m, 1);
  const Address node = Address::Node(m);
  const TimeUs delay = DelayTo(by, node);
  if (delay == 0) {
    StartAttempt(slot);
  } else {
    queue_.Push(Event{.time = queue_.now() + delay, .type = EventType::kLaunchArrives, .a = slot,
                      .b = a.generation});
  }
  return absl::OkStatus();
}

absl::Status EngineCore::DoKill(const TaskRef& t) {
  if (absl::Status s = CheckActiveTask(t); !s.ok()) return Refuse(std::string(s.message()));
  const JobRun& jr = jobs_[t.job.value()];
  const TaskState s = jr.progress->state(t);
  if (s != TaskState::kLaunched && s != TaskState::kRunning) return Refuse("the task is not launched or running");
  EndAttempt(jr.slot[jr.progress->stage_offset[t.stage] + t.index], policy::Outcome::kKilled);
  return absl::OkStatus();
}

absl::StatusOr<ContainerId> EngineCore::DoGrant(const Address& by, JobId job, MachineId m,
                                                  const Resources& size) {
  if (by.kind != RoleKind::kScheduler) return Refuse("only a cluster scheduler grants containers");
  if (!policy_.has_job_managers()) return Refuse("the policy has no job managers to hold containers");
  if (!job.valid() || job.value() >= jobs_.size() || !jobs_[job.value()].active) return Refuse("job not active");
  if (!m.valid() || m.value() >= w_.cluster.size() || !cluster_.up(m)) return Refuse("machine not up");
  if (size.IsZero()) return Refuse("a container needs a non-zero size");
  if (!size.FitsIn(cluster_.capacity(m))) return Refuse("the container exceeds the machine's capacity");
  if (!cluster_.Fits(m, size, policy_.overbooked())) return Refuse("the container does not fit");
  cluster_.Allocate(m, size);
  const policy::ContainerInfo& info = containers_.Grant(job, m, size, by, queue_.now());
  const ContainerId id = info.id;
  mailbox_.PostContainer(MailKind::kContainerGranted, Address::JobManager(job), info,
                         DelayTo(by, Address::JobManager(job)));
  return id;
}

absl::Status EngineCore::DoRelease(const Address& by, ContainerId c) {
  const policy::ContainerInfo* found = containers_.Find(c);
  if (found == nullptr) return Refuse("no such container");
  const policy::ContainerInfo info = *found;
  if (!(by == Address::JobManager(info.job) || by == info.granted_by)) {
    return Refuse("only the container's job manager or granter may release it");
  }
  if (info.tasks > 0) return Refuse("the container still runs tasks");
  cluster_.Deallocate(info.machine, info.size);
  containers_.Remove(c);
  ReportContainerEnd(info);
  mailbox_.PostContainer(MailKind::kContainerReleased, info.granted_by, info, DelayTo(by, info.granted_by));
  return absl::OkStatus();
}

void EngineCore::ReportContainerEnd(const policy::ContainerInfo& info) {
  const ContainerRecord record{info.job, info.machine, info.granted_us, queue_.now(), info.size};
  for (RunObserver* o : observers_) o->OnContainerEnd(record);
}

absl::Status EngineCore::DoStartPhase(const Address& by, const TaskRef& t) {
  if (by.kind != RoleKind::kNode) return Refuse("only node agents start phases");
  if (absl::Status s = CheckActiveTask(t); !s.ok()) return Refuse(std::string(s.message()));
  const JobRun& jr = jobs_[t.job.value()];
  if (jr.progress->state(t) != TaskState::kRunning) return Refuse("the task is not running");
  const uint32_t slot = jr.slot[jr.progress->stage_offset[t.stage] + t.index];
  Attempt& a = attempts_[slot];
  if (a.machine.value() != by.index) return Refuse("the task runs on another machine");
  if (a.segment_running || a.parked) return Refuse("the task's current phase is already running");
  RunCurrentSegment(slot);
  return absl::OkStatus();
}

}  // namespace weft::sim
