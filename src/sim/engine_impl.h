// File: sim/engine_impl.h (internal to sim/)
//
// The simulator's state and mechanics behind Engine: the per-job and
// per-attempt records, the role instances and their contexts, and the
// mailbox (sim/mailbox.h, a part with its own state) that carries messages,
// timers and notifications. Split over engine.cc (event loop, job and task
// lifecycle, machine failures), sim_context.cc (the policies' actions) and
// execution.cc (running attempts under the execution models).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/random.h"
#include "model/workload.h"
#include "policy/cluster_state.h"
#include "policy/context.h"
#include "policy/job_view.h"
#include "policy/policy.h"
#include "policy/roles.h"
#include "sim/engine.h"
#include "sim/event_queue.h"
#include "sim/execution.h"
#include "sim/mailbox.h"
#include "sim/node_mail.h"
#include "sim/slot_table.h"
#include "metrics/records.h"

namespace weft::sim {

class EngineCore;

// A kLaunchArrives event whose `c` is kShuffleEndTag ends the shuffle phase
// of attempt (a, generation b) instead (sim/shuffle.cc); other launch events
// have c = 0.
inline constexpr uint32_t kShuffleEndTag = 1;
// A kLaunchArrives event whose `c` is kRemoteReadEndTag ends the remote read
// of attempt (a, generation b) (sim/locality.cc).
inline constexpr uint32_t kRemoteReadEndTag = 2;
// A kLaunchArrives event whose `c` is kRetryGrowthTag retries, on machine a,
// the profiled phases parked until their demand fits (sim/profiled_phases.cc).
inline constexpr uint32_t kRetryGrowthTag = 3;

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

// Per-job run state; allocated when the job arrives, freed when it ends, so
// only active jobs hold per-task state.
struct JobRun {
  std::unique_ptr<policy::JobProgress> progress;
  std::vector<uint8_t> failures;      // failed attempts per task
  std::vector<uint8_t> attempts;      // attempts started per task (capped at 255)
  std::vector<uint32_t> slot;         // attempt slot of a launched/running task
  std::vector<TimeUs> stage_ready_us; // when each stage's barrier parents were done
  // Per stage, parent stages whose launch condition is not met yet (barrier:
  // not all done; shuffle: short of its slow-start threshold); the stage is
  // released at 0. Equals barrier_parents_left without shuffle edges.
  std::vector<uint32_t> launch_left;
  std::vector<TimeUs> task_ready_us;  // per task, only for jobs with pipelined edges
  // Per stage, the attempts (slot, generation) in their shuffle phase waiting
  // for the last parent task; sized only for jobs whose shuffles wait.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> shuffling;
  std::unique_ptr<SimContext> jm_context;
  std::unique_ptr<policy::JobManager> manager;
  TimeUs first_start_us = -1;
  bool active = false;
};

// A launched or running attempt, as the engine tracks it; how its work
// progresses is its Execution's (sim/execution.h).
struct Attempt {
  TaskRef task;
  MachineId machine;
  ContainerId container;
  uint32_t attempt_no = 0;
  uint32_t generation = 0;  // bumped when the slot is freed, to drop stale events
  uint16_t phase = 0;       // current phase for tasks with phases
  bool started = false;     // arrived on the machine
  bool segment_running = false;  // the current segment (whole task or phase) was started
  bool free = true;
  bool shuffling = false;   // in its shuffle phase (shuffle edges): its own work waits
  bool shuffled = false;    // its shuffle phase is over (or it had none)
  bool input_read = false;  // its remote read (locality cost) is over, or it had none
  double copy_done_us = 0;  // when the parents' output available so far is copied
  TimeUs ready_us = 0;
  TimeUs start_us = 0;
  uint64_t launch_order = 0;
  Resources demand;         // reserved at launch
  Resources usage;          // the stage's average use
  // Profiled phases (sim/profiled_phases.cc): what the attempt reserves now
  // (its current phase's demand; `demand` otherwise), whether its next phase
  // waits for room, and the shuffle phase whose end waits for the edge's.
  Resources reserved;
  bool parked = false;
  bool phase_waits_shuffle = false;  // a "shuffle" phase did its work; the edge's shuffle goes on
  bool phase_deferred = false;       // that phase's record waits for the shuffle's end
  TimeUs deferred_start_us = 0;
  double deferred_held = 0;
};

class EngineCore final : public ExecutionHost, public MailRecipients {
 public:
  EngineCore(const Workload& workload, policy::Policy& policy, SimOptions options);
  // SetExecution replaces the simulated execution model (the runtime's
  // LiveEngine runs attempts for real); before anything runs.
  void SetExecution(std::unique_ptr<Execution> execution);

  // engine.cc
  absl::Status Run();
  // CreateRoles builds the scheduler replicas and the node agents of the
  // machines that are up; machines not in `up` start down.
  void CreateRoles(const std::vector<bool>& up);
  void Dispatch(const Event& e);
  // ArriveJob: `history` holds the job's attempts that ended before (the
  // runtime's journal recovery): its ok tasks are marked done first and never
  // offered, and attempt numbers and failures carry on from it.
  void ArriveJob(JobId job, std::span<const AttemptRecord> history = {});
  void RecoverHistory(JobId job, std::span<const AttemptRecord> history);
  void FinishJob(JobId job, bool succeeded);
  void TaskDone(const TaskRef& t);
  void ReleaseStage(JobId job, uint32_t stage);
  void MakeReady(const TaskRef& t, bool notify);
  void NotifyReady(JobId job, uint32_t stage, uint32_t begin, uint32_t end);
  TimeUs DelayTo(const policy::Address& from, const policy::Address& to) const;
  policy::Address HomeOf(JobId job) const;
  uint32_t HomeReplica(JobId job) const;  // job % replicas, skipping dead ones
  void SchedulerDown(uint32_t replica);
  void MachineDown(MachineId m);
  void MachineUp(MachineId m);

  // MailRecipients: the mailbox delivers to the roles here (inline: the
  // mailbox's hot path).
  policy::Role* FindRole(const policy::Address& to) override {
    switch (to.kind) {
      case policy::RoleKind::kScheduler:
        return to.index < schedulers_.size() ? schedulers_[to.index].get() : nullptr;
      case policy::RoleKind::kJobManager:
        return to.index < jobs_.size() ? jobs_[to.index].manager.get() : nullptr;
      case policy::RoleKind::kNode:
        return to.index < nodes_.size() ? nodes_[to.index].get() : nullptr;
    }
    return nullptr;
  }
  bool NodesElsewhere() const override { return remote_agents(); }
  bool NodeUpElsewhere(uint32_t m) const override { return m < remote_alive_.size() && remote_alive_[m]; }
  void ToNode(MachineId m, const NodeMail& mail) override { agent_channel_->DeliverToNode(m, mail); }

  // sim_context.cc (validation and bookkeeping of decisions)
  absl::Status DoLaunch(const policy::Address& by, const TaskRef& t, MachineId m, ContainerId c);
  absl::Status DoKill(const TaskRef& t);
  absl::StatusOr<ContainerId> DoGrant(const policy::Address& by, JobId job, MachineId m, const Resources& size);
  absl::Status DoRelease(const policy::Address& by, ContainerId c);
  absl::Status DoStartPhase(const policy::Address& by, const TaskRef& t);
  absl::Status Refuse(std::string message);
  void ReportContainerEnd(const policy::ContainerInfo& info);
  absl::Status CheckActiveTask(const TaskRef& t) const;  // exists, and its job is active
  absl::Status CheckReadyTask(const TaskRef& t) const;

  // attempts.cc: attempts on machines; the ExecutionHost side.
  uint32_t NewAttempt();
  void StartAttempt(uint32_t slot);
  void EndAttempt(uint32_t slot, policy::Outcome outcome);
  static uint64_t AttemptId(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
  Locality LocalityOf(const Attempt& a) const;
  ExecutionAttempt ExecutionView(const Attempt& a) const;
  bool AgentControlsPhases(MachineId m) const;
  void BeginSegments(uint32_t slot) override;
  void SegmentDone(uint32_t slot) override;
  void AttemptDone(uint32_t slot, Outcome outcome) override;
  void UsageChanged(uint32_t slot, const Resources& before, const Resources& after) override;
  void PhaseEnded(uint32_t slot, uint32_t phase, TimeUs start_us, double held, bool completed) override;
  Resources ContainerSize(ContainerId c) const override;

  // shuffle.cc: the shuffle phase of a task behind shuffle edges. It copies
  // each parent task's shuffle_mb over its machine's network as the parent
  // tasks end (one copy after another at the machine's full bandwidth) and
  // ends once the last parent task has ended and everything is copied; then
  // the task's own work begins.
  // StartShuffle: false when there is nothing to wait for or copy.
  bool StartShuffle(uint32_t slot);
  // ShuffleOutputReady: a task of the parent of shuffle edge `child` ended ok.
  void ShuffleOutputReady(JobId job, const Edge& child);
  // ShuffleParentsDone: every parent task of `stage` has ended.
  void ShuffleParentsDone(JobId job, uint32_t stage);
  void ScheduleShuffleEnd(uint32_t slot);
  void EndShuffle(const Event& e);

  // profiled_phases.cc: a task with profiled phases reserves its current
  // phase's demand. RunCurrentSegment runs the attempt's current segment once
  // its reservation has moved to that segment's demand; a phase whose demand
  // grows beyond what is free (outside the policy's overbooked resources)
  // is parked until something on its machine releases room.
  void RunCurrentSegment(uint32_t slot);
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

  const Workload& w_;
  policy::Policy& policy_;
  SimOptions opt_;
  policy::Knowledge knowledge_;
  EventQueue queue_;
  policy::ClusterState cluster_;
  RunStats stats_;
  Mailbox mailbox_{queue_, stats_};  // messages, timers and notifications in flight
  std::vector<RunObserver*> observers_;
  Engine::ProgressFn progress_;
  uint64_t progress_every_ = 0;

  std::vector<JobId> arrival_order_;
  size_t next_arrival_ = 0;
  std::vector<JobRun> jobs_;
  std::vector<JobId> active_jobs_;

  std::vector<std::unique_ptr<SimContext>> scheduler_contexts_;
  std::vector<std::unique_ptr<policy::ClusterScheduler>> schedulers_;
  std::vector<bool> scheduler_up_;
  std::vector<std::unique_ptr<SimContext>> node_contexts_;
  std::vector<std::unique_ptr<policy::NodeAgent>> nodes_;

  std::vector<Attempt> attempts_;
  std::vector<uint32_t> free_attempts_;
  std::vector<std::vector<uint32_t>> machine_attempts_;  // started or launched, per machine
  // Per machine: attempts (slot, generation) whose next profiled phase waits
  // for room, in the order they parked; and whether a retry is queued.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked_;
  std::vector<uint8_t> retry_queued_;
  uint64_t start_counter_ = 0;
  uint64_t launch_counter_ = 0;
  std::unique_ptr<Execution> execution_;  // chosen once per run
  // The run's execution is simulated (not replaced by SetExecution): only
  // then does the engine charge the locality cost's remote reads, since a
  // real task reads its input for real.
  bool simulated_execution_ = true;


  absl::flat_hash_map<uint32_t, policy::ContainerInfo> containers_;
  uint32_t next_container_ = 0;

  // Node agents hosted elsewhere (the runtime's nodes): their mail goes
  // through this channel, and remote_alive_ says which are up.
  AgentChannel* agent_channel_ = nullptr;
  std::vector<bool> remote_alive_;
  bool remote_agents() const { return agent_channel_ != nullptr; }
  // The remote agents control phases (NodeAgent::ControlsPhases); set by
  // LiveEngine, which asks the policy's agent once.
  bool remote_controls_phases_ = false;
  // HasAgent: machine m has a node agent now (here, or remote).
  bool HasAgent(uint32_t m) const {
    return m < nodes_.size() && (nodes_[m] != nullptr || (remote_agents() && remote_alive_[m]));
  }

  Rng root_rng_;
  uint64_t events_since_progress_ = 0;
  uint64_t unfinished_jobs_ = 0;
};

}  // namespace weft::sim
