// LiveEngine: EngineCore driven by the runtime's clock and executors. Every
// entry point first delivers what is due by `now`, then applies the outside
// change, then delivers what that change made due at once, so the policy's
// reactions happen inside the call, as they would at that instant in a run.
#include "sim/live_engine.h"

#include <algorithm>

#include "core/status.h"
#include "sim/engine_impl.h"

namespace weft::sim {

namespace {
uint32_t SlotOf(uint64_t id) { return static_cast<uint32_t>(id & 0xffffffffu); }
uint32_t GenerationOf(uint64_t id) { return static_cast<uint32_t>(id >> 32); }
}  // namespace

LiveEngine::LiveEngine(const Workload& workload, policy::Policy& policy, SimOptions options,
                       AttemptExecutor& executor, bool remote_agents)
    : core_(std::make_unique<EngineCore>(workload, policy, std::move(options))) {
  core_->executor_ = &executor;
  core_->remote_agents_ = remote_agents && policy.has_node_agents();
  // Jobs are added one by one while the engine runs (JobAdded).
  core_->arrival_order_.clear();
  core_->unfinished_jobs_ = 0;
  core_->jobs_.clear();
}

LiveEngine::~LiveEngine() = default;

void LiveEngine::AddObserver(RunObserver* observer) { core_->observers_.push_back(observer); }

absl::Status LiveEngine::Start(TimeUs now, const std::vector<bool>& up) {
  if (up.size() != core_->w_.cluster.size()) return absl::InvalidArgumentError("one up flag per machine");
  RETURN_IF_ERROR(ValidateSimOptions(core_->w_, core_->policy_, core_->opt_));
  core_->queue_.AdvanceTo(now);
  core_->CreateRoles(up);
  Advance(now);
  return absl::OkStatus();
}

void LiveEngine::Advance(TimeUs now) {
  Event e;
  while (core_->queue_.PopDue(now, e)) {
    ++core_->stats_.events;
    core_->Dispatch(e);
  }
  core_->queue_.AdvanceTo(now);
}

TimeUs LiveEngine::NextEventTime() const { return core_->queue_.NextTime(); }

void LiveEngine::JobAdded(JobId id, TimeUs now, TimeUs arrival, std::span<const AttemptRecord> history) {
  Advance(now);
  core_->jobs_.resize(core_->w_.jobs.size());
  ++core_->unfinished_jobs_;
  if (arrival > now && history.empty()) {
    core_->queue_.Push(Event{.time = arrival, .type = EventType::kJobArrival, .a = id.value()});
  } else {
    core_->ArriveJob(id, history);
  }
  Advance(now);
}

bool LiveEngine::AttemptEnded(uint64_t id, Outcome outcome, const Resources& usage, TimeUs now, TimeUs ran_us) {
  Advance(now);
  const uint32_t slot = SlotOf(id);
  if (slot >= core_->attempts_.size()) return false;
  Attempt& a = core_->attempts_[slot];
  if (a.free || a.generation != GenerationOf(id)) return false;
  if (a.started) {
    core_->cluster_.RemoveUsed(a.machine, a.usage);
    a.usage = usage;
    core_->cluster_.AddUsed(a.machine, a.usage);
    if (ran_us >= 0) a.start_us = std::clamp(now - ran_us, a.start_us, now);
  }
  core_->ending_by_executor_ = true;
  core_->EndAttempt(slot, outcome);
  core_->ending_by_executor_ = false;
  Advance(now);
  return true;
}

void LiveEngine::UpdateUsage(uint64_t id, const Resources& usage, TimeUs now) {
  Advance(now);
  const uint32_t slot = SlotOf(id);
  if (slot >= core_->attempts_.size()) return;
  Attempt& a = core_->attempts_[slot];
  if (a.free || a.generation != GenerationOf(id) || !a.started) return;
  core_->cluster_.RemoveUsed(a.machine, a.usage);
  a.usage = usage;
  core_->cluster_.AddUsed(a.machine, a.usage);
}

void LiveEngine::NodeSend(MachineId m, const policy::Address& to, policy::Message message, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return;  // an agent the engine already gave up
  ++core_->stats_.messages;
  const policy::Address from = policy::Address::Node(m);
  core_->mailbox_.PostMessage(from, to, message, core_->DelayTo(from, to));
  Advance(now);
}

absl::Status LiveEngine::NodeLaunch(MachineId m, const TaskRef& task, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return absl::FailedPreconditionError("the node's agent is not up");
  absl::Status s = core_->DoLaunch(policy::Address::Node(m), task, m, ContainerId());
  Advance(now);
  return s;
}

absl::Status LiveEngine::NodeKill(MachineId m, const TaskRef& task, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return absl::FailedPreconditionError("the node's agent is not up");
  absl::Status s = core_->DoKill(task);
  Advance(now);
  return s;
}

void LiveEngine::MachineUp(MachineId m, TimeUs now) {
  Advance(now);
  core_->MachineUp(m);
  Advance(now);
}

void LiveEngine::MachineDown(MachineId m, TimeUs now) {
  Advance(now);
  core_->MachineDown(m);
  Advance(now);
}

bool LiveEngine::CancelJob(JobId id, TimeUs now) {
  Advance(now);
  if (!job_active(id)) return false;
  core_->FinishJob(id, false);
  Advance(now);
  return true;
}

const policy::JobProgress* LiveEngine::progress(JobId id) const {
  if (!id.valid() || id.value() >= core_->jobs_.size()) return nullptr;
  return core_->jobs_[id.value()].progress.get();
}

bool LiveEngine::job_active(JobId id) const {
  return id.valid() && id.value() < core_->jobs_.size() && core_->jobs_[id.value()].active;
}

const RunStats& LiveEngine::stats() const { return core_->stats_; }

uint64_t LiveEngine::running_attempts() const {
  return core_->attempts_.size() - core_->free_attempts_.size();
}

}  // namespace weft::sim
