// File: sim/engine_impl.h (internal to sim/)
//
// EngineCore: the simulator's event loop behind Engine (and LiveEngine),
// wiring the parts that keep the run's state, each with its state private:
// the attempt table (sim/attempt_table.h), the container table
// (sim/container_table.h), the link to remote node agents
// (sim/remote_agents.h), the decision checker (sim/decision_checker.h: what
// a policy may do), the job tracker (sim/job_tracker.h: readiness,
// recovery, a job's end) and the mailbox (sim/mailbox.h) that carries
// messages, timers and notifications. Its own state is private; its hosts
// (Engine, LiveEngine) and the roles' contexts (SimContext) call methods.
// Split over engine.cc (event loop, job and task lifecycle, machine
// failures), sim_context.cc (the policies' actions), attempts.cc (attempts
// on machines), shuffle.cc, profiled_phases.cc, locality.cc and
// scheduler_failure.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/paged_store.h"
#include "core/random.h"
#include "model/workload.h"
#include "policy/cluster_state.h"
#include "policy/context.h"
#include "policy/job_view.h"
#include "policy/policy.h"
#include "policy/roles.h"
#include "sim/attempt_table.h"
#include "sim/container_table.h"
#include "sim/decision_checker.h"
#include "sim/engine.h"
#include "sim/event_queue.h"
#include "sim/execution.h"
#include "sim/job_tracker.h"
#include "sim/mailbox.h"
#include "sim/network_flows.h"
#include "sim/node_mail.h"
#include "sim/remote_agents.h"
#include "sim/slot_table.h"
#include "metrics/records.h"

namespace weft::sim {

class EngineCore;

// SimContext: a role's window on the engine (policy/context.h).
class SimContext final : public policy::Context {
 public:
  SimContext(EngineCore& engine, policy::Address self, Rng rng)
      : engine_(engine), self_(self), rng_(std::move(rng)) {}

  policy::Address self() const override { return self_; }
  TimeUs Now() const override;
  Rng& rng() override { return rng_; }
  uint32_t num_schedulers() const override;
  const policy::ClusterState& cluster() const override;
  policy::JobView job(JobId id) const override;
  std::span<const JobId> active_jobs() const override;
  const policy::ContainerInfo* container(ContainerId id) const override;
  void Send(const policy::Address& to, policy::Message message) override;
  policy::TimerId SetTimer(TimeUs delay, uint64_t tag) override;
  bool CancelTimer(policy::TimerId id) override;
  absl::Status Launch(const TaskRef& task, MachineId machine) override;
  absl::Status LaunchInContainer(const TaskRef& task, ContainerId container) override;
  absl::Status Kill(const TaskRef& task) override;
  absl::StatusOr<ContainerId> GrantContainer(JobId job, MachineId machine, const Resources& size) override;
  absl::Status ReleaseContainer(ContainerId container) override;
  absl::Status StartPhase(const TaskRef& task) override;
  void Record(std::string_view series, JobId job, double value) override;

 private:
  EngineCore& engine_;
  policy::Address self_;
  Rng rng_;
};

// Its public API is what its hosts (Engine, LiveEngine) and the roles'
// contexts call; the callbacks of its parts (the execution's ExecutionHost,
// the mailbox's MailRecipients, the job tracker's JobEvents) are private
// adapters that forward to its private methods.
class EngineCore final {
 public:
  // `source`: where jobs come from (nullptr: the workload's, in arrival order).
  EngineCore(const Workload& workload, policy::Policy& policy, SimOptions options, JobSource* source = nullptr);
  // SetExecution replaces the simulated execution model (the runtime's
  // LiveEngine runs attempts for real); before anything runs.
  void SetExecution(std::unique_ptr<Execution> execution);
  // AttachRemoteAgents: the policy's node agents are hosted elsewhere and
  // hear their mail through `channel` (the runtime's nodes); once, before
  // anything runs. Whether they control phases is asked of the policy here.
  void AttachRemoteAgents(AgentChannel& channel);
  void AddObserver(RunObserver* observer) { observers_.push_back(observer); }
  void SetProgress(Engine::ProgressFn fn, uint64_t every_events);

  // engine.cc
  absl::Status Run();
  // A run driven from outside (LiveEngine): jobs come one by one (AddJob)
  // rather than from the workload's list; Start builds the roles at `now`,
  // machine m up iff up[m]; RunDue delivers everything due by `now`.
  void ExpectJobsAdded();
  absl::Status Start(TimeUs now, const std::vector<bool>& up);
  void RunDue(TimeUs now);
  TimeUs NextEventTime() const { return queue_.NextTime(); }
  // AddJob: job `id` (in the workload already) arrives at `arrival`, or
  // now when `history` (its attempts that ended before) is not empty.
  void AddJob(JobId id, TimeUs arrival, std::span<const AttemptRecord> history);
  void FinishJob(JobId job, bool succeeded);
  // ReleaseJobs: ended jobs no longer needed (JobTracker::Release).
  void ReleaseJobs(std::span<const JobId> ids) { jobs_.Release(ids); }
  void MachineDown(MachineId m);
  void MachineUp(MachineId m);
  // HasAgent: machine m has a node agent now (here, or remote).
  bool HasAgent(uint32_t m) const {
    return m < nodes_.size() && (nodes_[m] != nullptr || remote_.alive(m));
  }

  // What the engine's host and the roles' contexts read.
  const EventQueue& clock() const { return queue_; }
  TimeUs Now() const { return queue_.now(); }
  const RunStats& stats() const { return stats_; }
  const policy::ClusterState& cluster() const { return cluster_; }
  uint32_t num_schedulers() const { return static_cast<uint32_t>(schedulers_.size()); }
  const ContainerTable& containers() const { return containers_; }
  const JobTracker& jobs() const { return jobs_; }
  // held_manager_pages: pages of job managers (and their contexts) held.
  size_t held_manager_pages() const { return managers_.held_pages() + manager_contexts_.held_pages(); }
  std::span<const JobId> active_jobs() const { return jobs_.active_jobs(); }
  policy::JobView JobViewOf(JobId id) const;

  // sim_context.cc: the roles' actions (validation and bookkeeping of
  // decisions); a refusal is counted and returned as FailedPrecondition.
  void Send(const policy::Address& from, const policy::Address& to, policy::Message& message);
  policy::TimerId SetTimer(const policy::Address& by, TimeUs delay, uint64_t tag);
  bool CancelTimer(const policy::Address& by, policy::TimerId id);
  void Record(std::string_view series, JobId job, double value);
  absl::Status DoLaunch(const policy::Address& by, const TaskRef& t, MachineId m, ContainerId c);
  absl::Status DoLaunchInContainer(const policy::Address& by, const TaskRef& t, ContainerId c);
  absl::Status DoKill(const TaskRef& t);
  absl::StatusOr<ContainerId> DoGrant(const policy::Address& by, JobId job, MachineId m, const Resources& size);
  absl::Status DoRelease(const policy::Address& by, ContainerId c);
  absl::Status DoStartPhase(const policy::Address& by, const TaskRef& t);

  // attempts.cc
  void EndAttempt(uint32_t slot, policy::Outcome outcome);

  // The attempts, for a driver that runs them outside (LiveEngine), named by
  // AttemptTable::Id. AttemptLive: the attempt is launched or running (not
  // ended, not stale). AttemptArrived: it has reached its machine.
  // AttemptRunsPhase: its current phase is `phase` and runs (started, not
  // ended). AttemptView: what its execution is told of it (it must be live).
  // live_attempts: how many are launched or running.
  bool AttemptLive(uint64_t id) const { return attempts_.Find(id) != nullptr; }
  bool AttemptArrived(uint64_t id) const {
    const Attempt* a = attempts_.Find(id);
    return a != nullptr && a->arrived();
  }
  bool AttemptRunsPhase(uint64_t id, uint32_t phase) const {
    const Attempt* a = attempts_.Find(id);
    // A report naming a phase its task does not have (a node's stream is
    // untrusted input) is not a phase's end.
    return a != nullptr && a->phase == phase && AttemptLifecycle::Running(a->state()) &&
           phase < w_.jobs[a->task.job.value()].stages[a->task.stage].phases.size();
  }
  const ExecutionAttempt& AttemptView(uint64_t id) const { return *attempts_.Find(id); }
  uint64_t live_attempts() const { return attempts_.live(); }
  // execution_host: the host an execution built outside the engine (the
  // runtime's LiveExecution) reports to; then handed to SetExecution.
  ExecutionHost& execution_host() { return host_; }

  // The jobs, for a driver: a job's progress (nullptr before it arrived or
  // once released), whether it is active, how many jobs' run state is held.
  const policy::JobProgress* JobProgressOf(JobId id) const {
    const JobRun* run = jobs_.run(id);
    return run == nullptr ? nullptr : run->progress.get();
  }
  bool JobActive(JobId id) const { return jobs_.active(id); }
  uint64_t held_jobs() const { return jobs_.LiveRuns(); }
  // held_job_pages: pages of per-job state (the tracker's, the managers').
  size_t held_job_pages() const { return jobs_.held_pages() + held_manager_pages(); }

 private:
  // The private adapters: each implements one of the parts' callback
  // interfaces by forwarding to the engine.
  class Host final : public ExecutionHost {
   public:
    explicit Host(EngineCore& e) : e_(e) {}
    void BeginSegments(uint32_t slot) override { e_.BeginSegments(slot); }
    void SegmentDone(uint32_t slot) override { e_.SegmentDone(slot); }
    void AttemptDone(uint32_t slot, Outcome outcome) override { e_.EndAttempt(slot, outcome); }
    void UsageChanged(uint32_t slot, const Resources& before, const Resources& after) override {
      e_.UsageChanged(slot, before, after);
    }
    void PhaseEnded(uint32_t slot, uint32_t phase, TimeUs start_us, double held, bool completed) override {
      e_.PhaseEnded(slot, phase, start_us, held, completed);
    }
    Resources ContainerSize(ContainerId c) const override { return e_.containers_.SizeOf(c); }
    void BytesMoved(uint32_t slot) override { e_.BytesMoved(slot); }

   private:
    EngineCore& e_;
  };
  // Recipients: final, so that the mailbox's Deliver (a template) calls
  // FindRole inline: the mailbox's hot path.
  class Recipients final : public MailRecipients {
   public:
    explicit Recipients(EngineCore& e) : e_(e) {}
    policy::Role* FindRole(const policy::Address& to) override { return e_.FindRole(to); }
    bool NodesElsewhere() const override { return e_.remote_.attached(); }
    bool NodeUpElsewhere(uint32_t m) const override { return e_.remote_.alive(m); }
    void ToNode(MachineId m, const NodeMail& mail) override { e_.remote_.Deliver(m, mail); }

   private:
    EngineCore& e_;
  };
  class TrackerEvents final : public JobEvents {
   public:
    explicit TrackerEvents(EngineCore& e) : e_(e) {}
    void TasksReady(JobId job, uint32_t stage, uint32_t begin, uint32_t end) override {
      e_.TasksReady(job, stage, begin, end);
    }
    void ShuffleOutputReady(JobId job, const Edge& child, MachineId where) override {
      e_.ShuffleOutputReady(job, child, where);
    }
    void ShuffleParentsDone(JobId job, uint32_t stage) override { e_.ShuffleParentsDone(job, stage); }
    void JobCompleted(JobId job) override { e_.FinishJob(job, true); }

   private:
    EngineCore& e_;
  };

  // ExecutionView: what the execution is told of attempt `a` (its base: no
  // copy; it changes as the attempt does).
  static const ExecutionAttempt& ExecutionView(const Attempt& a) { return a; }

  // The mailbox delivers to the roles here (inline: its hot path).
  policy::Role* FindRole(const policy::Address& to) {
    switch (to.kind) {
      case policy::RoleKind::kScheduler:
        return to.index < schedulers_.size() ? schedulers_[to.index].get() : nullptr;
      case policy::RoleKind::kJobManager:
        return to.index < managers_.size() ? std::as_const(managers_)[to.index].get() : nullptr;
      case policy::RoleKind::kNode:
        return to.index < nodes_.size() ? nodes_[to.index].get() : nullptr;
    }
    return nullptr;
  }

  // What the execution reports (attempts.cc; ExecutionHost).
  // BeginSegments: the attempt is on its machine (kArrived); its remote
  // read, shuffle and work follow (InputRead, BeginWork).
  void BeginSegments(uint32_t slot);
  void SegmentDone(uint32_t slot);
  void UsageChanged(uint32_t slot, const Resources& before, const Resources& after);
  void PhaseEnded(uint32_t slot, uint32_t phase, TimeUs start_us, double held, bool completed);

  // What the job tracker's changes mean (engine.cc, shuffle.cc; JobEvents).
  void TasksReady(JobId job, uint32_t stage, uint32_t begin, uint32_t end);
  void ShuffleOutputReady(JobId job, const Edge& child, MachineId where);
  void ShuffleParentsDone(JobId job, uint32_t stage);

  // engine.cc
  // CreateRoles builds the scheduler replicas and the node agents of the
  // machines that are up; machines not in `up` start down.
  void CreateRoles(const std::vector<bool>& up);
  void Dispatch(const Event& e);
  // ArriveJob: `history` holds the job's attempts that ended before (the
  // runtime's journal recovery): its ok tasks are marked done first and never
  // offered, and attempt numbers and failures carry on from it.
  void ArriveJob(JobId job, std::span<const AttemptRecord> history = {});
  TimeUs DelayTo(const policy::Address& from, const policy::Address& to) const;
  // DecisionDelay: how long a launch decided by `by` waits for its turn at
  // its scheduler replica (the profile's decision_s; 0 for other roles).
  TimeUs DecisionDelay(const policy::Address& by);
  // MessageDelay: when a policy message sent now reaches `to`: the trip,
  // plus the sender's and the receiver's turns when they are scheduler
  // replicas (the profile's message_s).
  TimeUs MessageDelay(const policy::Address& from, const policy::Address& to);
  // SchedulerTurn: replica `replica` serves `cost` of work arriving at
  // `from` after what it has queued; returns when it is done.
  TimeUs SchedulerTurn(uint32_t replica, TimeUs from, TimeUs cost);
  // HeartbeatWait: from now to machine m's next heartbeat (the profile's
  // containers.heartbeat_s; 0 without).
  TimeUs HeartbeatWait(MachineId m) const;
  policy::Address HomeOf(JobId job) const;
  uint32_t HomeReplica(JobId job) const;  // job % replicas, skipping dead ones
  void SchedulerDown(uint32_t replica);

  // sim_context.cc
  absl::Status Refuse(absl::Status refusal);  // counts it
  void ReportContainerEnd(const policy::ContainerInfo& info);

  // attempts.cc: attempts on machines, through their lifecycle
  // (sim/attempt_state.h). InputRead: its input is local or read; its
  // shuffle (if any) next. BeginWork: its first segment, to the node agent
  // or run, alongside the edge's shuffle or not. NextSegment: its current
  // segment is over; the next, or its end.
  void StartAttempt(uint32_t slot);
  void InputRead(uint32_t slot);
  void BeginWork(uint32_t slot, Attempt& a, const Stage& st, bool alongside_shuffle);
  void NextSegment(uint32_t slot, Attempt& a);
  Locality LocalityOf(const Attempt& a) const;
  bool AgentControlsPhases(MachineId m) const;

  // shuffle.cc: the shuffle phase of a task behind shuffle edges. It copies
  // each parent task's shuffle_mb from the parent's machine as the parent
  // tasks end, one flow per source machine (sim/network_flows.h), and ends
  // once the last parent task has ended and every flow is done; then the
  // task's own work begins.
  // StartShuffle: false when there is nothing to wait for or copy.
  bool StartShuffle(uint32_t slot);
  // CopyFrom: the shuffling attempt copies `mb` more from machine `from`.
  void CopyFrom(uint32_t slot, const Attempt& a, MachineId from, double mb);
  // ShuffleMayEnd: its end, when its parents are done and its flows over.
  void ShuffleMayEnd(uint32_t slot);
  void ScheduleShuffleEnd(uint32_t slot);
  void EndShuffle(const Event& e);

  // Flows (sim/network_flows.h): FlowEnded hands a done flow to its owner;
  // ReportFlows passes ended flows' records on.
  void FlowEnded(const Event& e);
  // BytesMoved: the execution's own moves for the attempt are over (its
  // input is read, or its shuffle may end).
  void BytesMoved(uint32_t slot);
  // StartRealRead: the attempt off its input's machines reads it through
  // the execution (Execution::MovesBytes); false when nothing is moved.
  bool StartRealRead(uint32_t slot);
  void ReportFlows();

  // profiled_phases.cc: a task with profiled phases reserves its current
  // phase's demand. RunCurrentSegment runs the attempt's current segment once
  // its reservation has moved to that segment's demand; a phase whose demand
  // grows beyond what is free (outside the policy's overbooked resources)
  // is parked until something on its machine releases room.
  void RunCurrentSegment(uint32_t slot, bool alongside_shuffle);
  bool MoveReservation(uint32_t slot);
  void RetryParked(const Event& e);
  void WakeParked(MachineId m);
  // ShufflePhaseFirst: the attempt's task is behind a shuffle edge and its
  // first profiled phase is named "shuffle": that phase runs from launch
  // alongside the edge's shuffle and ends at the later of the two.
  bool ShufflePhaseFirst(const Attempt& a) const;
  void EmitDeferredPhase(uint32_t slot, bool completed);

  // locality.cc: the locality cost (model/locality.h). A task placed off the
  // machines holding its input first waits out its remote read, holding what
  // it reserved and running nothing; then its shuffle (if any) and its work.
  // StartRemoteRead: false when the attempt reads nothing remotely.
  bool StartRemoteRead(uint32_t slot);
  void EndRemoteRead(const Event& e);
  // ReadSource: the machine holding the attempt's input that it reads from.
  MachineId ReadSource(const Attempt& a) const;

  const Workload& w_;
  policy::Policy& policy_;
  SimOptions opt_;
  policy::Knowledge knowledge_;
  bool has_job_managers_;  // the policy's, asked once: every task's end asks where its job's home is
  EventQueue queue_;
  policy::ClusterState cluster_;
  RunStats stats_;
  Mailbox mailbox_{queue_, stats_};  // messages, timers and notifications in flight
  std::vector<RunObserver*> observers_;
  Engine::ProgressFn progress_;
  uint64_t progress_every_ = 0;

  // The adapters, before the parts that hold them.
  Host host_{*this};
  Recipients recipients_{*this};
  TrackerEvents tracker_events_{*this};

  JobTracker jobs_{w_, tracker_events_};
  // The job managers (policies with job managers), by job, while it is active.
  // By job id, paged (core/paged_store.h): a finished job's manager is freed,
  // so a long-lived live engine keeps no slot per job it ever ran (issue 20).
  PagedStore<std::unique_ptr<SimContext>> manager_contexts_;
  PagedStore<std::unique_ptr<policy::JobManager>> managers_;

  std::vector<std::unique_ptr<SimContext>> scheduler_contexts_;
  std::vector<std::unique_ptr<policy::ClusterScheduler>> schedulers_;
  std::vector<bool> scheduler_up_;
  std::vector<std::unique_ptr<SimContext>> node_contexts_;
  std::vector<std::unique_ptr<policy::NodeAgent>> nodes_;

  AttemptTable attempts_;
  // Per machine: attempts (slot, generation) whose next profiled phase waits
  // for room, in the order they parked; and whether a retry is queued.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked_;
  std::vector<uint8_t> retry_queued_;
  uint64_t start_counter_ = 0;
  std::unique_ptr<Execution> execution_;  // chosen once per run
  // Bytes between machines: remote reads and shuffle copies, and the records
  // of flows that ended, waiting for ReportFlows.
  NetworkFlows network_{w_.cluster, queue_};
  std::vector<EndedFlow> ended_flows_;

  ContainerTable containers_;
  DecisionChecker checker_{w_, policy_, cluster_, jobs_, containers_, attempts_};
  // Node agents hosted elsewhere (the runtime's nodes), when attached.
  RemoteAgents remote_;

  // The machine profile's engine-level costs, in microseconds, and when
  // each scheduler replica is done with the decisions queued so far.
  TimeUs launch_us_ = 0;
  TimeUs decision_us_ = 0;
  TimeUs message_us_ = 0;
  TimeUs heartbeat_us_ = 0;
  std::vector<TimeUs> scheduler_busy_until_;

  Rng root_rng_;
  uint64_t events_since_progress_ = 0;
};

}  // namespace weft::sim
