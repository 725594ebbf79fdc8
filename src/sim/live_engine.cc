// LiveEngine: EngineCore driven by the runtime's clock and executors. Every
// entry point first delivers what is due by `now`, then applies the outside
// change, then delivers what that change made due at once, so the policy's
// reactions happen inside the call, as they would at that instant in a run.
#include "sim/live_engine.h"

#include <algorithm>
#include <optional>

#include "core/status.h"
#include "model/job_source.h"
#include "sim/engine_impl.h"

namespace weft::sim {

namespace {
uint64_t IdOf(uint32_t slot, uint32_t generation) { return AttemptTable::Id(slot, generation); }
}  // namespace

// LiveExecution: attempts run as real processes on the runtime's nodes
// (through the AttemptExecutor). A task without phases runs as a whole; a
// task with phases runs one phase at a time (segments, as in simulation):
// the engine hands each ready phase to the node agent that controls phases,
// or runs it at once (RunSegment -> AttemptExecutor::StartPhase), and the
// node reports each phase's end (PhaseReported). What an attempt uses is the
// node's measurement; before the first one, its stage's expected usage.
class LiveExecution final : public Execution {
 public:
  LiveExecution(AttemptExecutor& executor, ExecutionHost& host, const Workload& workload, const EventQueue& queue)
      : executor_(executor), host_(host), w_(workload), queue_(queue) {}

  void Begin(uint32_t slot, const ExecutionAttempt& a) override {
    if (slot >= runs_.size()) runs_.resize(slot + 1);
    const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
    const auto phases = static_cast<uint32_t>(st.phases.size());
    runs_[slot] = Run{.active = true, .use = a.usage, .peak = a.usage, .begin_us = queue_.now()};
    host_.UsageChanged(slot, Resources(), a.usage);
    // A phased task's launch only reserves (its phases start one by one); a
    // whole task's process starts in RunSegment, which the engine calls at
    // once, or after the shuffle when the task was launched at slow start
    // (its parents' last task not yet done).
    if (phases > 0) {
      executor_.StartAttempt(AttemptLaunch{IdOf(slot, a.generation), a.task, a.attempt_no, a.machine, phases,
                                           a.container, host_.ContainerSize(a.container)});
    }
    host_.BeginSegments(slot);  // phase 0 (or the whole task) ready: to the agent, or RunSegment
  }
  void RunSegment(uint32_t slot, const ExecutionAttempt& a) override {
    const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
    if (st.phases.empty()) {
      executor_.StartAttempt(AttemptLaunch{IdOf(slot, a.generation), a.task, a.attempt_no, a.machine, 0, a.container,
                                           host_.ContainerSize(a.container)});
      return;
    }
    runs_[slot].phase_start_us = queue_.now();
    executor_.StartPhase(IdOf(slot, a.generation), a.machine, a.task, a.phase);
  }
  void OnSegmentEvent(const Event& /*e*/) override {}
  bool ChargesRemoteReads() const override { return false; }  // a real task reads its input for real
  // Shuffle copies and input reads move real bytes between the nodes; one
  // the executor cannot move is not waited for.
  bool MovesBytes() const override { return true; }
  void MoveBytes(uint32_t slot, const ExecutionAttempt& a, MachineId from, double mb) override {
    if (slot >= copies_.size()) copies_.resize(slot + 1);
    if (executor_.CopyBytes(IdOf(slot, a.generation), a.machine, from, mb)) ++copies_[slot];
  }
  uint32_t LiveMoves(uint32_t slot) const override { return slot < copies_.size() ? copies_[slot] : 0; }

  // CopyReported: one of the attempt's copies ended; the last done lets its
  // shuffle end, a failed one fails the attempt (its end kills the rest).
  void CopyReported(uint32_t slot, bool done) {
    if (LiveMoves(slot) == 0) return;  // not one of its copies (a stale or repeated report)
    --copies_[slot];
    if (!done) return host_.AttemptDone(slot, Outcome::kFailed);
    if (copies_[slot] == 0) host_.BytesMoved(slot);
  }

  AttemptAccount End(uint32_t slot, const ExecutionAttempt& a) override {
    AttemptAccount account;
    // An end the engine decided (a kill, a failed job, a lost machine) stops
    // the process; an end the node reported has nothing left to stop.
    if (slot != reporting_) executor_.KillAttempt(IdOf(slot, a.generation), a.machine);
    if (slot < copies_.size()) copies_[slot] = 0;  // the kill stops them
    if (slot >= runs_.size() || !runs_[slot].active) return account;
    Run& run = runs_[slot];
    if (run.phase_start_us >= 0) {
      host_.PhaseEnded(slot, a.phase, run.phase_start_us, 0, false);  // stopped during the phase
    }
    account.usage = {run.use, run.peak};
    if (run.phased_area_us > 0) {
      // Phased: the average over the attempt's life of what its phases used.
      const double life = static_cast<double>(std::max<TimeUs>(1, queue_.now() - run.begin_us));
      for (int k = 0; k < kNumResources; ++k) {
        const auto r = static_cast<Resource>(k);
        account.usage.average.set_micro(r, std::llround(run.area[k] / life));
      }
    }
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
    run.peak = Max(run.peak, usage);
  }
  // Reporting: the node reported the end of attempt `slot` (it began at
  // `start_us` when known, else -1) with what it used over its run; the
  // engine's End follows at once.
  void Reporting(uint32_t slot, const policy::TaskUsage& usage, TimeUs start_us) {
    if (slot < runs_.size() && runs_[slot].active) {
      Run& run = runs_[slot];
      host_.UsageChanged(slot, run.use, usage.average);
      run.use = usage.average;
      run.peak = Max(run.peak, usage.peak);
      run.start_us = start_us;
    }
    reporting_ = slot;
  }
  void Reported() { reporting_ = UINT32_MAX; }

  // PhaseReported: the node ran phase `phase` of the attempt in `slot` to
  // its end, using `usage`. The phase's record holds what the phase used of
  // its resource on average (a cpu phase: its cores; disk, net: MB/s).
  void PhaseReported(uint32_t slot, const ExecutionAttempt& a, const policy::TaskUsage& usage) {
    Run& run = runs_[slot];
    const TimeUs span = std::max<TimeUs>(0, queue_.now() - run.phase_start_us);
    const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
    const Resource r = st.phases[a.phase].resource;
    for (int k = 0; k < kNumResources; ++k) {
      run.area[k] += static_cast<double>(usage.average.micro(static_cast<Resource>(k))) * static_cast<double>(span);
    }
    run.phased_area_us += span;
    run.peak = Max(run.peak, usage.peak);
    const TimeUs start = run.phase_start_us;
    run.phase_start_us = -1;
    host_.PhaseEnded(slot, a.phase, start, usage.average.units(r), true);
    reporting_ = slot;  // the last phase's end is no kill
    host_.SegmentDone(slot);
    reporting_ = UINT32_MAX;
  }

 private:
  struct Run {
    bool active = false;
    Resources use;
    Resources peak;
    TimeUs start_us = -1;
    TimeUs begin_us = 0;
    TimeUs phase_start_us = -1;  // the running phase's start; -1 between phases
    TimeUs phased_area_us = 0;   // time covered by ended phases
    std::array<double, kNumResources> area{};  // micro-units x us used by ended phases
  };
  static Resources Max(const Resources& a, const Resources& b) {
    Resources out = a;
    for (int k = 0; k < kNumResources; ++k) {
      const auto r = static_cast<Resource>(k);
      out.set_micro(r, std::max(a.micro(r), b.micro(r)));
    }
    return out;
  }
  AttemptExecutor& executor_;
  ExecutionHost& host_;
  const Workload& w_;
  std::vector<Run> runs_;
  std::vector<uint32_t> copies_;  // per slot: shuffle copies not yet reported
  uint32_t reporting_ = UINT32_MAX;
  const EventQueue& queue_;  // the engine's clock
};

// AddedJobs: the live run's jobs, added by the caller (JobAdded), as the
// job source of the engine's tracker: the tracker never pulls from it (its
// jobs come by AddJob), but releases through it. Unlike a streamed replay,
// which keeps a released job's stub (its results are written at the end),
// a live run frees the whole job: the workload's store is paged
// (core/paged_store.h), so a long-lived scheduler holds no memory for the
// jobs its retention compacted.
class LiveEngine::AddedJobs final : public JobSource {
 public:
  explicit AddedJobs(Workload& workload) : w_(workload) {}
  const Workload& workload() const override { return w_; }
  Workload& workload_mut() { return w_; }
  bool HasPhases() const override {
    return std::any_of(w_.jobs.begin(), w_.jobs.end(), [](const Job& j) { return weft::HasPhases(j); });
  }
  void Release(std::span<const JobId> jobs) override {
    for (const JobId id : jobs) w_.jobs.Free(id.value());
  }
  uint64_t LiveJobs() const override { return w_.jobs.size() - w_.jobs.freed_count(); }

 protected:
  std::optional<JobId> Pull() override { return std::nullopt; }

 private:
  Workload& w_;
};

LiveEngine::LiveEngine(Workload& workload, policy::Policy& policy, SimOptions options, AttemptExecutor& executor,
                       bool remote_agents)
    : added_(std::make_unique<AddedJobs>(workload)),
      core_(std::make_unique<EngineCore>(workload, policy, std::move(options), added_.get())) {
  auto execution = std::make_unique<LiveExecution>(executor, core_->execution_host(), workload, core_->clock());
  execution_ = execution.get();
  core_->SetExecution(std::move(execution));
  if (remote_agents && policy.has_node_agents()) core_->AttachRemoteAgents(executor);
  core_->ExpectJobsAdded();  // jobs are added one by one while the engine runs (JobAdded)
}

LiveEngine::~LiveEngine() = default;

void LiveEngine::AddObserver(RunObserver* observer) { core_->AddObserver(observer); }

absl::Status LiveEngine::Start(TimeUs now, const std::vector<bool>& up) { return core_->Start(now, up); }

void LiveEngine::Advance(TimeUs now) { core_->RunDue(now); }

TimeUs LiveEngine::NextEventTime() const { return core_->NextEventTime(); }

void LiveEngine::JobAdded(JobId id, TimeUs now, TimeUs arrival, std::span<const AttemptRecord> history) {
  Advance(now);
  core_->AddJob(id, arrival, history);
  Advance(now);
}

bool LiveEngine::AttemptEnded(uint64_t id, Outcome outcome, const policy::TaskUsage& usage, TimeUs now,
                              TimeUs ran_us) {
  Advance(now);
  if (!core_->AttemptLive(id)) return false;
  const uint32_t slot = AttemptTable::SlotOf(id);
  execution_->Reporting(slot, usage, core_->AttemptArrived(id) && ran_us >= 0 ? now - ran_us : -1);
  core_->EndAttempt(slot, outcome);
  execution_->Reported();
  Advance(now);
  return true;
}

void LiveEngine::UpdateUsage(uint64_t id, const Resources& usage, TimeUs now) {
  Advance(now);
  if (!core_->AttemptArrived(id)) return;
  execution_->Measured(AttemptTable::SlotOf(id), usage);
}

void LiveEngine::NodeSend(MachineId m, const policy::Address& to, policy::Message message, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return;  // an agent the engine already gave up
  core_->Send(policy::Address::Node(m), to, message);
  Advance(now);
}

absl::Status LiveEngine::NodeLaunch(MachineId m, const TaskRef& task, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return absl::FailedPreconditionError("the node's agent is not up");
  absl::Status s = core_->DoLaunch(policy::Address::Node(m), task, m, ContainerId());
  Advance(now);
  return s;
}

absl::Status LiveEngine::NodeStartPhase(MachineId m, const TaskRef& task, TimeUs now) {
  Advance(now);
  if (!core_->HasAgent(m.value())) return absl::FailedPreconditionError("the node's agent is not up");
  absl::Status s = core_->DoStartPhase(policy::Address::Node(m), task);
  Advance(now);
  return s;
}

bool LiveEngine::PhaseEnded(uint64_t id, uint32_t phase, const policy::TaskUsage& usage, TimeUs now) {
  Advance(now);
  if (!core_->AttemptRunsPhase(id, phase)) return false;
  execution_->PhaseReported(AttemptTable::SlotOf(id), core_->AttemptView(id), usage);
  Advance(now);
  return true;
}

bool LiveEngine::CopyEnded(uint64_t id, bool done, TimeUs now) {
  Advance(now);
  if (!core_->AttemptLive(id)) return false;
  execution_->CopyReported(AttemptTable::SlotOf(id), done);
  Advance(now);
  return true;
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

void LiveEngine::ReleaseJobs(std::span<const JobId> ids, TimeUs now) {
  Advance(now);
  core_->ReleaseJobs(ids);  // the tracker frees the jobs it released (AddedJobs::Release)
  // Jobs the engine never ran (the caller's placeholders, as a restarted
  // scheduler's ended jobs) are freed too, but not one still to arrive.
  Workload& w = added_->workload_mut();
  for (const JobId id : ids) {
    if (id.value() < w.jobs.size() && core_->JobProgressOf(id) == nullptr && w.jobs[id.value()].arrival_us <= now) {
      w.jobs.Free(id.value());
    }
  }
}

uint64_t LiveEngine::held_jobs() const { return core_->held_jobs(); }
size_t LiveEngine::held_job_pages() const { return core_->held_job_pages(); }

const policy::JobProgress* LiveEngine::progress(JobId id) const { return core_->JobProgressOf(id); }

bool LiveEngine::job_active(JobId id) const { return core_->JobActive(id); }

const RunStats& LiveEngine::stats() const { return core_->stats(); }

const policy::ClusterState& LiveEngine::cluster() const { return core_->cluster(); }

uint64_t LiveEngine::running_attempts() const { return core_->live_attempts(); }

}  // namespace weft::sim
