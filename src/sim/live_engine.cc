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
uint64_t IdOf(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
}  // namespace

// LiveExecution: attempts run as real processes on the runtime's nodes
// (through the AttemptExecutor); the node runs a task's work as a whole and
// reports what it used. An attempt's use is its stage's expected usage until
// the node's first measurement.
class LiveExecution final : public Execution {
 public:
  LiveExecution(AttemptExecutor& executor, ExecutionHost& host) : executor_(executor), host_(host) {}

  void Begin(uint32_t slot, const ExecutionAttempt& a) override {
    if (slot >= runs_.size()) runs_.resize(slot + 1);
    runs_[slot] = Run{.active = true, .use = a.usage, .peak = a.usage};
    host_.UsageChanged(slot, Resources(), a.usage);
    executor_.StartAttempt(AttemptLaunch{IdOf(slot, a.generation), a.task, a.attempt_no, a.machine});
  }
  void RunSegment(uint32_t /*slot*/, const ExecutionAttempt& /*a*/) override {}  // the node runs the whole task
  void OnSegmentEvent(const Event& /*e*/) override {}

  AttemptAccount End(uint32_t slot, const ExecutionAttempt& a) override {
    AttemptAccount account;
    // An end the engine decided (a kill, a failed job, a lost machine) stops
    // the process; an end the node reported has nothing left to stop.
    if (slot != reporting_) executor_.KillAttempt(IdOf(slot, a.generation), a.machine);
    if (slot >= runs_.size() || !runs_[slot].active) return account;
    Run& run = runs_[slot];
    account.usage = {run.use, run.peak};
    account.start_us = run.start_us;
    host_.UsageChanged(slot, run.use, Resources());
    run.active = false;
    return account;
  }

  // Measured: the node measured what attempt `slot` uses now.
  void Measured(uint32_t slot, const Resources& usage) {
    if (slot >= runs_.size() || !runs_[slot].active) return;
    Run& run = runs_[slot];
    host_.UsageChanged(slot, run.use, usage);
    run.use = usage;
    for (int k = 0; k < kNumResources; ++k) {
      const auto r = static_cast<Resource>(k);
      run.peak.set_micro(r, std::max(run.peak.micro(r), usage.micro(r)));
    }
  }
  // Reporting: the node reported the end of attempt `slot` (it began at
  // `start_us` when known, else -1); the engine's End follows at once.
  void Reporting(uint32_t slot, const Resources& usage, TimeUs start_us) {
    Measured(slot, usage);
    if (slot < runs_.size()) runs_[slot].start_us = start_us;
    reporting_ = slot;
  }
  void Reported() { reporting_ = UINT32_MAX; }

 private:
  struct Run {
    bool active = false;
    Resources use;
    Resources peak;
    TimeUs start_us = -1;
  };
  AttemptExecutor& executor_;
  ExecutionHost& host_;
  std::vector<Run> runs_;
  uint32_t reporting_ = UINT32_MAX;
};

LiveEngine::LiveEngine(const Workload& workload, policy::Policy& policy, SimOptions options,
                       AttemptExecutor& executor, bool remote_agents)
    : core_(std::make_unique<EngineCore>(workload, policy, std::move(options))) {
  auto execution = std::make_unique<LiveExecution>(executor, *core_);
  execution_ = execution.get();
  core_->SetExecution(std::move(execution));
  if (remote_agents && policy.has_node_agents()) core_->agent_channel_ = &executor;
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
  execution_->Reporting(slot, usage, a.started && ran_us >= 0 ? now - ran_us : -1);
  core_->EndAttempt(slot, outcome);
  execution_->Reported();
  Advance(now);
  return true;
}

void LiveEngine::UpdateUsage(uint64_t id, const Resources& usage, TimeUs now) {
  Advance(now);
  const uint32_t slot = SlotOf(id);
  if (slot >= core_->attempts_.size()) return;
  Attempt& a = core_->attempts_[slot];
  if (a.free || a.generation != GenerationOf(id) || !a.started) return;
  execution_->Measured(slot, usage);
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

const policy::ClusterState& LiveEngine::cluster() const { return core_->cluster_; }

uint64_t LiveEngine::running_attempts() const {
  return core_->attempts_.size() - core_->free_attempts_.size();
}

}  // namespace weft::sim
