// File: sim/engine_impl.h (internal to sim/)
//
// The simulator's state and mechanics behind Engine: the per-job and
// per-attempt records, the role instances and their contexts, and the
// mailbox that carries messages, timers and notifications. Split over
// engine.cc (event loop, job and task lifecycle, machine failures),
// mailbox.cc (posting and delivering mail), sim_context.cc (the policies'
// actions) and execution.cc (running attempts under the execution models).
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
#include "sim/live_engine.h"
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
  std::vector<TimeUs> task_ready_us;  // per task, only for jobs with pipelined edges
  std::unique_ptr<SimContext> jm_context;
  std::unique_ptr<policy::JobManager> manager;
  TimeUs first_start_us = -1;
  bool active = false;
};

// A launched or running attempt.
struct Attempt {
  TaskRef task;
  MachineId machine;
  ContainerId container;
  uint32_t attempt_no = 0;
  uint32_t generation = 0;  // bumped when the slot is freed, to drop stale events
  uint32_t version = 0;     // bumped when the current segment's end moves
  uint16_t phase = 0;       // current phase for tasks with phases
  uint16_t fail_phase = 0;  // the phase at whose end a doomed attempt fails
  bool started = false;     // arrived on the machine
  bool running_segment = false;  // a segment (whole task or phase) is progressing
  bool doomed = false;      // will fail (task_failure_prob)
  bool free = true;
  TimeUs ready_us = 0;
  TimeUs start_us = 0;
  TimeUs last_update_us = 0;
  TimeUs planned_end_us = 0;  // when the current segment's end event is due
  uint64_t start_order = 0;
  double remaining_us = 0;  // nominal (uncontended) microseconds left in the segment
  double rate = 1;          // progress per microsecond, (0, 1]
  Resources demand;
  Resources usage;
  Resources want;           // what the current segment asks of cpu, disk and net
};

enum class MailKind : uint8_t {
  kMessage, kTimer, kJobArrived, kTasksReady, kTaskEnded, kJobFinished,
  kMachineUp, kMachineDown, kContainerGranted, kContainerLost, kContainerReleased, kPhaseReady, kStart,
  kSchedulerDown,  // tag: the replica that died
  kCancelled,      // a timer cancelled while in flight: dropped when due
};

// Mail: a notification as the engine posts it, by kind: tag
// (kSchedulerDown), range (kTasksReady), end (kTaskEnded), job and ok
// (kJobArrived, kJobFinished), machine (kMachineUp, kMachineDown), end.task
// and phase (kPhaseReady); container records go through PostContainerMail,
// messages through PostMessage and timers through PostTimer.
struct Mail {
  MailKind kind = MailKind::kTimer;
  policy::Address to;
  policy::Address from;
  uint64_t tag = 0;
  policy::TaskRange range;
  policy::TaskEnd end;
  JobId job;
  bool ok = true;
  MachineId machine;
  uint32_t phase = 0;
};

// A message's lists, parked in a side table while the message is in flight.
struct MessageLists {
  std::vector<int64_t> list;
  std::vector<double> reals;
};

// A policy::Message as the mailbox carries it: the same fields, but its
// lists (rarely used) wait in a side table.
struct MessageMail {
  uint32_t type = 0;
  uint32_t lists = kNoSlot;  // slot in EngineCore::mail_lists_, if the message has a list or reals
  TaskRef task;
  int64_t a = 0;
  int64_t b = 0;
  int64_t c = 0;
  double x = 0;
};

// PackedMail: mail as the mailbox stores it, the addresses and only the
// payload its kind uses. Small and trivially copyable, because every
// message and notification is copied into the mailbox and out again:
// millions of times in a message-heavy run.
struct PackedMail {
  struct JobNote {
    JobId job;
    bool ok = true;
  };
  struct PhaseNote {
    TaskRef task;
    uint32_t phase = 0;
  };
  struct TimerNote {
    uint64_t tag = 0;
    uint32_t serial = 0;  // with the slot, the timer's TimerId; 0 once delivered
  };
  union Payload {
    Payload() : tag(0) {}
    uint64_t tag;             // kSchedulerDown
    TimerNote timer;          // kTimer, kCancelled
    MessageMail message;      // kMessage
    policy::TaskRange range;  // kTasksReady
    policy::TaskEnd end;      // kTaskEnded
    JobNote job;              // kJobArrived, kJobFinished
    MachineId machine;        // kMachineUp, kMachineDown
    uint32_t container;       // kContainer*: slot in EngineCore::mail_containers_
    PhaseNote phase;          // kPhaseReady
  };
  MailKind kind = MailKind::kTimer;
  uint32_t incarnation = 0;  // of the node agent addressed, stamped when posted
  policy::Address to;
  policy::Address from;
  Payload payload;
};
static_assert(std::is_trivially_copyable_v<PackedMail>, "mail is copied in and out of the mailbox: keep it plain");

class EngineCore {
 public:
  EngineCore(const Workload& workload, policy::Policy& policy, SimOptions options);

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

  // mailbox.cc
  void PostMail(const Mail& mail, TimeUs delay);
  void PostPacked(const PackedMail& mail, TimeUs delay);
  void Schedule(uint32_t mail_slot, TimeUs delay);  // stamps the incarnation, queues the delivery
  void PostMessage(const policy::Address& from, const policy::Address& to, policy::Message& message);  // takes its list
  policy::TimerId PostTimer(const policy::Address& to, uint64_t tag, TimeUs delay);
  bool CancelTimer(const policy::Address& by, policy::TimerId id);
  void PostContainerMail(MailKind kind, const policy::Address& to, const policy::ContainerInfo& info,
                         TimeUs delay);
  void DeliverMail(uint32_t slot);
  policy::Message UnpackMessage(const MessageMail& m);  // takes its lists from the side table
  void ForwardToNode(const PackedMail& mail);

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

  // execution.cc
  uint32_t NewAttempt();
  void StartAttempt(uint32_t slot);
  void StartSegment(uint32_t slot);
  void SegmentEnded(uint32_t slot);
  void EndAttempt(uint32_t slot, policy::Outcome outcome);
  static uint64_t AttemptId(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
  void Reschedule(MachineId m);
  void EnforceMemory(MachineId m);
  double NominalSegmentUs(const Attempt& a) const;
  Locality LocalityOf(const Attempt& a) const;

  const Workload& w_;
  policy::Policy& policy_;
  SimOptions opt_;
  policy::Knowledge knowledge_;
  EventQueue queue_;
  policy::ClusterState cluster_;
  RunStats stats_;
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
  // Bumped when a machine's agent dies and when a new one starts: mail
  // posted to an agent that has since died is dropped, so a dead agent's
  // timers and in-flight messages never reach its successor.
  std::vector<uint32_t> node_incarnation_;

  std::vector<Attempt> attempts_;
  std::vector<uint32_t> free_attempts_;
  std::vector<std::vector<uint32_t>> machine_attempts_;  // started or launched, per machine
  uint64_t start_counter_ = 0;

  SlotTable<PackedMail> mail_;                         // mail in flight, by the slot its event names
  uint32_t timer_serial_ = 0;                          // of the last timer set (0 is never used)
  SlotTable<MessageLists> mail_lists_;                 // messages' lists
  SlotTable<policy::ContainerInfo> mail_containers_;   // container records of container mail

  absl::flat_hash_map<uint32_t, policy::ContainerInfo> containers_;
  uint32_t next_container_ = 0;

  // Live mode (sim/live_engine.h): attempts run on real machines.
  AttemptExecutor* executor_ = nullptr;
  bool remote_agents_ = false;        // node agents run on the nodes (LiveEngine)
  std::vector<bool> remote_alive_;   // per machine, with remote_agents_: its agent is up
  // HasAgent: machine m has a node agent now (here, or remote).
  bool HasAgent(uint32_t m) const {
    return m < nodes_.size() && (nodes_[m] != nullptr || (remote_agents_ && remote_alive_[m]));
  }
  bool ending_by_executor_ = false;  // EndAttempt was called for an end the executor reported

  Rng root_rng_;
  Rng failure_rng_;
  uint64_t events_since_progress_ = 0;
  uint64_t unfinished_jobs_ = 0;
};

}  // namespace weft::sim
