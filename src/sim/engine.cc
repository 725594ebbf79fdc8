// The event loop and the life of jobs and tasks: arrival, readiness along
// barrier and pipelined edges, completion, failure; machines failing and
// recovering. The mail that reaches the policy's roles goes through the
// Mailbox (mailbox.h).
#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/status.h"
#include "fmt/format.h"
#include "model/shuffle.h"
#include "sim/engine_impl.h"
#include "sim/modeled_execution.h"

namespace weft::sim {

using policy::Address;
using policy::RoleKind;
using policy::TaskState;

const char* ExecutionModelName(ExecutionModel m) { return m == ExecutionModel::kFixed ? "fixed" : "contention"; }

Engine::Engine(const Workload& workload, policy::Policy& policy, SimOptions options)
    : impl_(std::make_unique<EngineCore>(workload, policy, std::move(options))) {}
Engine::Engine(JobSource& source, policy::Policy& policy, SimOptions options)
    : impl_(std::make_unique<EngineCore>(source.workload(), policy, std::move(options), &source)) {}
Engine::~Engine() = default;
void Engine::AddObserver(RunObserver* observer) { impl_->AddObserver(observer); }
void Engine::SetProgress(ProgressFn fn, uint64_t every_events) { impl_->SetProgress(std::move(fn), every_events); }
absl::Status Engine::Run() { return impl_->Run(); }
const RunStats& Engine::stats() const { return impl_->stats(); }

// Random streams forked from the seed, one per purpose, so that adding draws
// in one place never shifts the draws of another.
namespace {
constexpr uint64_t kFailureStream = 1;
constexpr uint64_t kSchedulerStreamBase = 1ULL << 32;
constexpr uint64_t kNodeStreamBase = 2ULL << 32;
constexpr uint64_t kJobStreamBase = 3ULL << 32;
}  // namespace

EngineCore::EngineCore(const Workload& workload, policy::Policy& policy, SimOptions options, JobSource* source)
    : w_(workload),
      policy_(policy),
      opt_(std::move(options)),
      knowledge_(policy.knowledge()),
      has_job_managers_(policy.has_job_managers()),
      cluster_(workload.cluster),
      root_rng_(opt_.seed) {
  cluster_.set_unfitted(policy.unfitted());  // what the policy's `fit` leaves to contend
  queue_.SetLaneDelay(opt_.latency_us);  // messages and notifications between roles skip the heap
  opt_.knowledge.seed = opt_.seed;
  if (source != nullptr) jobs_.SetSource(*source);
  if (has_job_managers_) {  // else nothing is held per job (a long-lived live engine: issue 20)
    manager_contexts_.resize(w_.jobs.size());
    managers_.resize(w_.jobs.size());
  }
  attempts_.SetMachines(w_.cluster.size());
  parked_.resize(w_.cluster.size());
  retry_queued_.resize(w_.cluster.size());
  launch_us_ = static_cast<TimeUs>(std::llround(opt_.profile.launch_s * 1e6));
  decision_us_ = static_cast<TimeUs>(std::llround(opt_.profile.decision_s * 1e6));
  message_us_ = static_cast<TimeUs>(std::llround(opt_.profile.message_s * 1e6));
  heartbeat_us_ = static_cast<TimeUs>(std::llround(opt_.profile.heartbeat_s * 1e6));
  Rng failure_rng = root_rng_.Fork(kFailureStream);
  if (opt_.model == ExecutionModel::kContention) {
    execution_ = std::make_unique<ContentionExecution>(w_, cluster_, queue_, host_, std::move(failure_rng),
                                                       opt_.task_failure_prob, opt_.profile);
  } else {
    execution_ = std::make_unique<FixedExecution>(w_, cluster_, queue_, host_, std::move(failure_rng),
                                                  opt_.task_failure_prob, opt_.profile);
  }
}

void EngineCore::SetExecution(std::unique_ptr<Execution> execution) {
  execution_ = std::move(execution);
}

void EngineCore::AttachRemoteAgents(AgentChannel& channel) {
  // Whether the agents on the nodes control phases is the policy's: ask a
  // throwaway agent (made, never started) once.
  bool controls_phases = false;
  if (w_.cluster.size() > 0) {
    SimContext probe(*this, Address::Node(MachineId(0)), Rng(0));
    controls_phases = policy_.MakeNodeAgent(probe, MachineId(0))->ControlsPhases();
  }
  remote_.Attach(channel, controls_phases);
}

void EngineCore::SetProgress(Engine::ProgressFn fn, uint64_t every_events) {
  progress_ = std::move(fn);
  progress_every_ = every_events;
}

void EngineCore::ExpectJobsAdded() {
  jobs_.ExpectJobsAdded();
  manager_contexts_.clear();
  managers_.clear();
}

absl::Status EngineCore::Start(TimeUs now, const std::vector<bool>& up) {
  if (up.size() != w_.cluster.size()) return absl::InvalidArgumentError("one up flag per machine");
  RETURN_IF_ERROR(ValidateSimOptions(w_, policy_, opt_));
  queue_.AdvanceTo(now);
  CreateRoles(up);
  RunDue(now);
  return absl::OkStatus();
}

void EngineCore::RunDue(TimeUs now) {
  Event e;
  while (queue_.PopDue(now, e)) {
    ++stats_.events;
    Dispatch(e);
  }
  queue_.AdvanceTo(now);
}

void EngineCore::AddJob(JobId id, TimeUs arrival, std::span<const AttemptRecord> history) {
  jobs_.AddJob();
  if (has_job_managers_) {
    manager_contexts_.resize(w_.jobs.size());
    managers_.resize(w_.jobs.size());
  }
  if (arrival > queue_.now() && history.empty()) {
    queue_.Push(Event{.time = arrival, .type = EventType::kJobArrival, .a = id.value()});
  } else {
    ArriveJob(id, history);
  }
}

absl::Status ValidateSimOptions(const Workload& workload, const policy::Policy& policy, const SimOptions& options) {
  // Jobs are homed on job % replicas; failures name machines and replicas.
  if (policy.num_schedulers() == 0) return absl::InvalidArgumentError("the policy has no cluster scheduler");
  for (const MachineFailure& f : options.failures) {
    if (!f.machine.valid() || f.machine.value() >= workload.cluster.size()) {
      return absl::InvalidArgumentError("a machine failure names a machine that is not in the cluster");
    }
  }
  std::vector<bool> fails(policy.num_schedulers(), false);
  for (const SchedulerFailure& f : options.scheduler_failures) {
    if (f.replica >= policy.num_schedulers()) {
      return absl::InvalidArgumentError(fmt::format("a scheduler failure names replica {} but the policy has {}",
                                                    f.replica, policy.num_schedulers()));
    }
    fails[f.replica] = true;
  }
  if (!options.scheduler_failures.empty() && std::find(fails.begin(), fails.end(), false) == fails.end()) {
    return absl::InvalidArgumentError("scheduler failures would leave no live scheduler replica");
  }
  return absl::OkStatus();
}

void EngineCore::CreateRoles(const std::vector<bool>& up) {
  for (uint32_t m = 0; m < w_.cluster.size(); ++m) {
    if (!up[m]) cluster_.SetUp(MachineId(m), false);
  }
  scheduler_up_.assign(policy_.num_schedulers(), true);
  for (uint32_t r = 0; r < policy_.num_schedulers(); ++r) {
    scheduler_contexts_.push_back(
        std::make_unique<SimContext>(*this, Address::Scheduler(r), root_rng_.Fork(kSchedulerStreamBase + r)));
    schedulers_.push_back(policy_.MakeScheduler(*scheduler_contexts_.back(), r));
  }
  if (policy_.has_node_agents()) {
    nodes_.resize(w_.cluster.size());
    node_contexts_.resize(w_.cluster.size());
    mailbox_.SetMachines(w_.cluster.size());
    remote_.SetMachines(w_.cluster.size());
    for (uint32_t m = 0; m < w_.cluster.size(); ++m) {
      if (up[m]) MachineUp(MachineId(m));
    }
  }
}

absl::Status EngineCore::Run() {
  RETURN_IF_ERROR(ValidateSimOptions(w_, policy_, opt_));
  CreateRoles(std::vector<bool>(w_.cluster.size(), true));
  for (const MachineFailure& f : opt_.failures) {
    queue_.Push(Event{.time = f.at_us, .type = EventType::kMachineDown, .a = f.machine.value()});
    if (f.recover_us) queue_.Push(Event{.time = *f.recover_us, .type = EventType::kMachineUp, .a = f.machine.value()});
  }
  for (const SchedulerFailure& f : opt_.scheduler_failures) {
    queue_.Push(Event{.time = f.at_us, .type = EventType::kSchedulerDown, .a = f.replica});
  }
  if (const std::optional<JobId> first = jobs_.FirstArrival()) {
    queue_.Push(Event{.time = w_.jobs[first->value()].arrival_us, .type = EventType::kJobArrival, .a = first->value()});
  }
  Event e;
  bool stalled = false;
  while (jobs_.unfinished() > 0 && queue_.Pop(e)) {
    ++stats_.events;
    Dispatch(e);
    if (++events_since_progress_ > opt_.stall_limit) {
      stalled = true;  // the run ends here, closed for the observers as any other
      break;
    }
    if (progress_every_ > 0 && stats_.events % progress_every_ == 0) {
      progress_(queue_.now(), stats_.tasks_done, w_.NumTasks());
    }
  }
  stats_.end_us = queue_.now();
  // Before the observers' end: counting takes the jobs that never arrived
  // from the source, and the metrics bound them.
  stats_.tasks_unfinished += jobs_.UnfinishedTasks();
  for (RunObserver* o : observers_) o->OnRunEnd(stats_.end_us);
  if (stalled) {
    return absl::InternalError(fmt::format("the policy made no progress for {} events at t={} s ({} tasks done)",
                                           opt_.stall_limit, FormatSeconds(queue_.now()), stats_.tasks_done));
  }
  if (jobs_.unfinished() > 0) {
    return absl::InternalError(fmt::format("{} jobs never finished: the policy left {} tasks unscheduled",
                                           jobs_.unfinished(), stats_.tasks_unfinished));
  }
  return absl::OkStatus();
}

void EngineCore::Dispatch(const Event& e) {
  switch (e.type) {
    case EventType::kJobArrival:
      ArriveJob(JobId(e.a));
      break;
    case EventType::kLaunchArrives:
      if (attempts_.Find(e.a, e.b) != nullptr) StartAttempt(e.a);
      break;
    case EventType::kRemoteReadEnd:
      EndRemoteRead(e);
      break;
    case EventType::kShuffleEnd:
      EndShuffle(e);
      break;
    case EventType::kFlowEnd:
      FlowEnded(e);
      break;
    case EventType::kRetryParked:
      RetryParked(e);
      break;
    case EventType::kSegmentEnd:
      execution_->OnSegmentEvent(e);
      break;
    case EventType::kDeliver:
      mailbox_.Deliver(e.a, recipients_);
      break;
    case EventType::kMachineDown:
      MachineDown(MachineId(e.a));
      break;
    case EventType::kMachineUp:
      MachineUp(MachineId(e.a));
      break;
    case EventType::kSchedulerDown:
      SchedulerDown(e.a);
      break;
  }
}

Address EngineCore::HomeOf(JobId job) const {
  if (has_job_managers_) return Address::JobManager(job);
  return Address::Scheduler(HomeReplica(job));
}

uint32_t EngineCore::HomeReplica(JobId job) const {
  const auto n = static_cast<uint32_t>(schedulers_.size());
  uint32_t r = job.value() % n;
  while (!scheduler_up_[r]) r = (r + 1) % n;  // Run() guarantees a live one
  return r;
}

TimeUs EngineCore::DelayTo(const Address& from, const Address& to) const {
  return from == to ? 0 : opt_.latency_us;
}

TimeUs EngineCore::SchedulerTurn(uint32_t replica, TimeUs from, TimeUs cost) {
  if (scheduler_busy_until_.size() <= replica) scheduler_busy_until_.resize(replica + 1, 0);
  TimeUs& busy = scheduler_busy_until_[replica];
  busy = std::max(busy, from) + cost;
  return busy;
}

TimeUs EngineCore::DecisionDelay(const Address& by) {
  if (decision_us_ == 0 || by.kind != policy::RoleKind::kScheduler) return 0;
  return SchedulerTurn(by.index, queue_.now(), decision_us_) - queue_.now();
}

TimeUs EngineCore::MessageDelay(const Address& from, const Address& to) {
  if (message_us_ == 0 || from == to) return DelayTo(from, to);
  // The sender's turn, the trip, then the receiver's turn: each replica
  // serves its messages and decisions one at a time, in the order they
  // reach it here (the order of sending).
  TimeUs at = queue_.now();
  if (from.kind == policy::RoleKind::kScheduler) at = SchedulerTurn(from.index, at, message_us_);
  at += DelayTo(from, to);
  if (to.kind == policy::RoleKind::kScheduler) at = SchedulerTurn(to.index, at, message_us_);
  return at - queue_.now();
}

TimeUs EngineCore::HeartbeatWait(MachineId m) const {
  if (heartbeat_us_ == 0) return 0;
  // Machine i heartbeats at i P / M + k P: spread evenly over the period, as
  // node managers started one after another are.
  const auto machines = static_cast<TimeUs>(w_.cluster.size());
  const TimeUs offset = heartbeat_us_ * static_cast<TimeUs>(m.value()) / machines;
  const TimeUs since = (queue_.now() - offset) % heartbeat_us_;
  return since == 0 ? 0 : heartbeat_us_ - (since < 0 ? since + heartbeat_us_ : since);
}

void EngineCore::ArriveJob(JobId id, std::span<const AttemptRecord> history) {
  events_since_progress_ = 0;
  // Schedule the next arrival first, so arrivals stay in file order at ties.
  if (const std::optional<JobId> next = jobs_.NextArrival()) {
    queue_.Push(Event{.time = w_.jobs[next->value()].arrival_us, .type = EventType::kJobArrival, .a = next->value()});
  }
  jobs_.Arrive(id);
  if (has_job_managers_ && managers_.size() <= id.value()) {  // a streamed source's jobs come as they arrive
    managers_.resize(id.value() + 1);
    manager_contexts_.resize(id.value() + 1);
  }
  mailbox_.Post(Mail{.kind = MailKind::kJobArrived, .to = Address::Scheduler(HomeReplica(id)), .job = id}, 0);
  if (policy_.has_job_managers()) {
    manager_contexts_[id.value()] = std::make_unique<SimContext>(*this, Address::JobManager(id),
                                                                 root_rng_.Fork(kJobStreamBase + id.value()));
    managers_[id.value()] = policy_.MakeJobManager(*manager_contexts_[id.value()], id);
    mailbox_.Post(Mail{.kind = MailKind::kStart, .to = Address::JobManager(id)}, 0);
  }
  if (history.empty()) return jobs_.ReleaseRoots(id, queue_.now());
  stats_.tasks_done += jobs_.Recover(id, history, queue_.now());
}

void EngineCore::TasksReady(JobId job, uint32_t stage, uint32_t begin, uint32_t end) {
  const Address home = HomeOf(job);
  mailbox_.Post(Mail{.kind = MailKind::kTasksReady, .to = home, .range = {job, stage, begin, end}}, opt_.latency_us);
}

void EngineCore::FinishJob(JobId id, bool succeeded) {
  if (!jobs_.active(id)) return;
  const Job& job = w_.jobs[id.value()];
  if (!succeeded) {
    // Stop everything the job still has in flight; its other tasks are
    // abandoned.
    jobs_.MarkFailed(id);
    for (uint64_t k = 0; k < jobs_.num_tasks(id); ++k) {
      if (jobs_.SlotAt(id, k) != kNoAttempt) EndAttempt(jobs_.SlotAt(id, k), policy::Outcome::kKilled);
    }
    jobs_.AbandonUndone(id);
  }
  const TimeUs first_start_us = jobs_.Finish(id);
  ++(succeeded ? stats_.jobs_succeeded : stats_.jobs_failed);
  // Containers of a finished job go back to their granters.
  for (uint32_t cid : containers_.OfJob(id)) (void)DoRelease(Address::JobManager(id), ContainerId(cid));
  const JobRecord record{id, job.arrival_us, first_start_us, queue_.now(), succeeded};
  for (RunObserver* o : observers_) o->OnJobEnd(record);
  for (uint32_t r = 0; r < schedulers_.size(); ++r) {
    mailbox_.Post(Mail{.kind = MailKind::kJobFinished, .to = Address::Scheduler(r), .job = id, .ok = succeeded},
                  opt_.latency_us);
  }
  if (has_job_managers_) {
    managers_[id.value()].reset();
    manager_contexts_[id.value()].reset();
    managers_.Free(id.value());
    manager_contexts_.Free(id.value());
  }
}

void EngineCore::MachineDown(MachineId m) {
  if (!cluster_.up(m)) return;
  events_since_progress_ = 0;
  // Everything on the machine is lost: its attempts end as killed (and their
  // tasks become ready again), its containers disappear, its agent dies.
  const std::span<const uint32_t> on_machine = attempts_.OnMachine(m);
  std::vector<uint32_t> lost(on_machine.begin(), on_machine.end());
  std::sort(lost.begin(), lost.end());
  for (uint32_t slot : lost) EndAttempt(slot, policy::Outcome::kKilled);
  for (uint32_t cid : containers_.OnMachine(m)) {
    const policy::ContainerInfo info = containers_.Remove(ContainerId(cid));
    cluster_.Deallocate(m, info.size);
    ReportContainerEnd(info);
    mailbox_.PostContainer(MailKind::kContainerLost, Address::JobManager(info.job), info, opt_.latency_us);
    mailbox_.PostContainer(MailKind::kContainerReleased, info.granted_by, info, opt_.latency_us);
  }
  cluster_.SetUp(m, false);
  if (!nodes_.empty()) {
    nodes_[m.value()].reset();
    node_contexts_[m.value()].reset();
    if (remote_.attached()) remote_.SetAlive(m.value(), false);
    mailbox_.NewNodeAgent(m);
  }
  for (uint32_t r = 0; r < schedulers_.size(); ++r) {
    mailbox_.Post(Mail{.kind = MailKind::kMachineDown, .to = Address::Scheduler(r), .machine = m}, opt_.latency_us);
  }
}

void EngineCore::MachineUp(MachineId m) {
  const bool was_down = !cluster_.up(m);
  cluster_.SetUp(m, true);
  if (remote_.attached() && policy_.has_node_agents() && !remote_.alive(m.value())) {
    remote_.SetAlive(m.value(), true);  // the node builds the agent when it hears kStart
    mailbox_.NewNodeAgent(m);
    mailbox_.Post(Mail{.kind = MailKind::kStart, .to = Address::Node(m)}, 0);
  } else if (!remote_.attached() && policy_.has_node_agents() && !nodes_[m.value()]) {
    node_contexts_[m.value()] = std::make_unique<SimContext>(
        *this, Address::Node(m), root_rng_.Fork(kNodeStreamBase + m.value()).Fork(start_counter_));
    nodes_[m.value()] = policy_.MakeNodeAgent(*node_contexts_[m.value()], m);
    mailbox_.NewNodeAgent(m);
    mailbox_.Post(Mail{.kind = MailKind::kStart, .to = Address::Node(m)}, 0);
  }
  if (was_down) {
    for (uint32_t r = 0; r < schedulers_.size(); ++r) {
      mailbox_.Post(Mail{.kind = MailKind::kMachineUp, .to = Address::Scheduler(r), .machine = m}, opt_.latency_us);
    }
  }
}

}  // namespace weft::sim
