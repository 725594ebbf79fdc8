// The policies' actions: each decision is checked (sim/decision_checker.h)
// before it changes anything; a refused decision returns FailedPrecondition,
// is counted, and leaves the simulation as it was.

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "core/status.h"
#include "fmt/format.h"
#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;

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

void EngineCore::Send(const Address& from, const Address& to, policy::Message& message) {
  ++stats_.messages;
  mailbox_.PostMessage(from, to, message, MessageDelay(from, to));
}

policy::TimerId EngineCore::SetTimer(const Address& by, TimeUs delay, uint64_t tag) {
  return mailbox_.PostTimer(by, tag, std::max<TimeUs>(0, delay));
}

bool EngineCore::CancelTimer(const Address& by, policy::TimerId id) { return mailbox_.CancelTimer(by, id); }

policy::JobView EngineCore::JobViewOf(JobId id) const {
  const JobRun* run = jobs_.run(id);
  if (run == nullptr || !run->progress) {
    // A policy bug: roles hear of a job only after it arrives.
    throw std::logic_error(fmt::format("policy asked about job {} before it arrived", id.value()));
  }
  return policy::JobView(id, w_.jobs[id.value()], *run->progress, knowledge_, opt_.knowledge);
}

void EngineCore::Record(std::string_view series, JobId job, double value) {
  const SeriesPoint point{queue_.now(), series, job, value};
  for (RunObserver* o : observers_) o->OnSeries(point);
}

absl::Status EngineCore::DoLaunchInContainer(const Address& by, const TaskRef& t, ContainerId c) {
  const absl::StatusOr<MachineId> m = checker_.ContainerMachine(c);
  if (!m.ok()) return Refuse(m.status());
  return DoLaunch(by, t, *m, c);
}

absl::Status EngineCore::Refuse(absl::Status refusal) {
  ++stats_.refused_decisions;
  return refusal;
}

absl::Status EngineCore::DoLaunch(const Address& by, const TaskRef& t, MachineId m, ContainerId c) {
  Resources reserve;
  absl::Status checked =
      checker_.Launch(by, t, m, c, [this](MachineId machine) { return AgentControlsPhases(machine); }, reserve);
  if (!checked.ok()) return Refuse(std::move(checked));
  if (c.valid()) {
    containers_.AddTask(c, reserve);
  } else {
    cluster_.Allocate(m, reserve);
  }
  const uint32_t slot = attempts_.New(m);
  Attempt& a = attempts_[slot];
  a.task = t;
  a.container = c;
  std::tie(a.attempt_no, a.ready_us) = jobs_.Launched(t, slot);
  a.demand = reserve;
  a.reserved = reserve;
  a.usage = w_.jobs[t.job.value()].stages[t.stage].TaskUsage(t.index);
  cluster_.AddRunning(m, 1);
  const Address node = Address::Node(m);
  // The profile's costs (docs/model.md, "The machine profile"): the
  // decision's turn at its scheduler, then the message, then the launch.
  const TimeUs delay = DecisionDelay(by) + DelayTo(by, node) + launch_us_;
  if (delay == 0) {
    StartAttempt(slot);
  } else {
    queue_.Push(Event{.time = queue_.now() + delay, .type = EventType::kLaunchArrives, .a = slot,
                      .b = a.generation});
  }
  return absl::OkStatus();
}

absl::Status EngineCore::DoKill(const TaskRef& t) {
  const absl::StatusOr<uint32_t> slot = checker_.Kill(t);
  if (!slot.ok()) return Refuse(slot.status());
  EndAttempt(*slot, policy::Outcome::kKilled);
  return absl::OkStatus();
}

absl::StatusOr<ContainerId> EngineCore::DoGrant(const Address& by, JobId job, MachineId m,
                                                  const Resources& size) {
  if (absl::Status s = checker_.Grant(by, job, m, size); !s.ok()) return Refuse(std::move(s));
  cluster_.Allocate(m, size);
  const policy::ContainerInfo& info = containers_.Grant(job, m, size, by, queue_.now());
  const ContainerId id = info.id;
  // The machine's room is the job's from now on, but the grant reaches the
  // job only after the machine's next heartbeat (the profile's heartbeat_s).
  mailbox_.PostContainer(MailKind::kContainerGranted, Address::JobManager(job), info,
                         HeartbeatWait(m) + DelayTo(by, Address::JobManager(job)));
  return id;
}

absl::Status EngineCore::DoRelease(const Address& by, ContainerId c) {
  const absl::StatusOr<policy::ContainerInfo> checked = checker_.Release(by, c);
  if (!checked.ok()) return Refuse(checked.status());
  const policy::ContainerInfo& info = *checked;
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
  const absl::StatusOr<uint32_t> slot = checker_.StartPhase(by, t);
  if (!slot.ok()) return Refuse(slot.status());
  RunCurrentSegment(*slot, /*alongside_shuffle=*/attempts_[*slot].state() == AttemptState::kShufflingPhaseReady);
  return absl::OkStatus();
}

}  // namespace weft::sim
