// File: sim/live_engine.h
//
// LiveEngine: the simulator's engine driven by a real clock and by real
// task executions, for the runtime's scheduler daemon (src/runtime/). It is
// the same EngineCore the simulator runs (job lifecycle, readiness along
// barrier and pipelined edges, retries, containers, the policies' Context and
// the validation of every decision), with three differences:
//   - time is whatever the caller says it is: every call takes `now` (the
//     daemon's clock, microseconds since its epoch), and Advance(now) delivers
//     the messages and timers due by then;
//   - an attempt does not run under an execution model: StartAttempt hands it
//     to an AttemptExecutor (the node daemons), and it ends when the caller
//     reports AttemptEnded; an attempt the engine ends itself (a Kill by the
//     policy, a failed job, a lost machine) is killed through the executor;
//   - jobs are added while it runs (JobAdded), and may come back from the
//     journal with the attempts they had, whose done tasks are not run again.
// The cluster is fixed when the engine starts (one slot per node); machines
// that are not up yet are down until MachineUp.
// Not thread-safe: the daemon calls it under one lock.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "metrics/records.h"
#include "model/workload.h"
#include "policy/job_view.h"
#include "policy/policy.h"
#include "sim/engine.h"
#include "sim/node_mail.h"

namespace weft::sim {

// An attempt to run on a machine. `id` is unique for the engine's lifetime.
// phases > 0: the task has phases; nothing runs until StartPhase.
struct AttemptLaunch {
  uint64_t id = 0;
  TaskRef task;
  uint32_t attempt = 0;
  MachineId machine;
  uint32_t phases = 0;
  // The container it runs in (invalid: none) and that container's size: the
  // node holds the container as a cgroup of that size with its tasks inside.
  ContainerId container;
  Resources container_size;
};

// AttemptExecutor: the runtime's side of a live run: it runs attempts on the
// nodes, and (with remote node agents) carries their agents' mail.
class AttemptExecutor : public AgentChannel {
 public:
  // DeliverToNode: with remote node agents, mail for machine m's agent.
  void DeliverToNode(MachineId /*machine*/, const NodeMail& /*mail*/) override {}
  virtual void StartAttempt(const AttemptLaunch& launch) = 0;
  // KillAttempt: the engine has ended the attempt (it is already recorded as
  // killed); stop the process if it still runs. Its end must not be reported.
  virtual void KillAttempt(uint64_t id, MachineId machine) = 0;
  // StartPhase: run phase `phase` of phased attempt `id` (launched with
  // phases > 0) now; report its end with LiveEngine::PhaseEnded.
  virtual void StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase) = 0;
  // CopyBytes: shuffling attempt `id` on `to` copies `mb` of its parents'
  // output from `from` (docs/runtime.md, "Bytes between nodes"); report its
  // end with LiveEngine::CopyEnded. False: this executor moves no bytes (the
  // copy counts as done at once, and the shuffle waits for its parents only).
  virtual bool CopyBytes(uint64_t /*id*/, MachineId /*to*/, MachineId /*from*/, double /*mb*/) { return false; }
};

class EngineCore;
class LiveExecution;

class LiveEngine {
 public:
  // `workload` must outlive the engine; its cluster is the live cluster and
  // the caller appends a job to workload.jobs before calling JobAdded; the
  // engine frees released jobs in it (ReleaseJobs: they read as Job{}).
  // remote_agents: the policy's node agents run elsewhere (on the nodes):
  // the engine builds none, hands their mail to executor.DeliverToNode, and
  // takes their actions through NodeSend and NodeLaunch.
  LiveEngine(Workload& workload, policy::Policy& policy, SimOptions options, AttemptExecutor& executor,
             bool remote_agents = false);
  ~LiveEngine();
  LiveEngine(const LiveEngine&) = delete;
  LiveEngine& operator=(const LiveEngine&) = delete;

  void AddObserver(RunObserver* observer);

  // Start builds the policy's roles at `now`; machine m is up iff up[m].
  absl::Status Start(TimeUs now, const std::vector<bool>& up);

  // JobAdded: job `id` (the last of workload.jobs) arrives at `arrival`
  // (>= now; later for a replayed trace). `history`: the job's attempts that
  // ended before (journal recovery): tasks with an ok attempt are neither
  // offered nor run again, and attempt numbers and failure counts go on
  // from where they were.
  void JobAdded(JobId id, TimeUs now, TimeUs arrival, std::span<const AttemptRecord> history = {});

  // AttemptEnded: the executor reports that attempt `id` ended. Ends the
  // engine already caused (kills) and unknown ids are ignored: returns false.
  // ran_us (>= 0 when known): how long it really ran; its record then starts
  // at now - ran_us (when the process began, as far as the engine can tell)
  // instead of when the launch was decided.
  // usage: what it used over its run (average and peak), in model units.
  bool AttemptEnded(uint64_t id, Outcome outcome, const policy::TaskUsage& usage, TimeUs now, TimeUs ran_us = -1);
  // UpdateUsage: what attempt `id` really uses now (cpu cores, memory GB,
  // disk and net MB/s), as the node measured it.
  void UpdateUsage(uint64_t id, const Resources& usage, TimeUs now);
  // PhaseEnded: the executor reports that phase `phase` of phased attempt
  // `id` finished well (a failed phase is an AttemptEnded with kFailed):
  // the next phase becomes ready (to the node agent that controls phases, or
  // started at once), or the attempt ends ok after its last. `average` and
  // `peak`: what the phase's process used. False for a stale id or phase.
  bool PhaseEnded(uint64_t id, uint32_t phase, const policy::TaskUsage& usage, TimeUs now);
  // CopyEnded: the executor reports that one shuffle copy of attempt `id`
  // (AttemptExecutor::CopyBytes) ended, done or not: the shuffle may end
  // once its copies are done and its parents too; a copy that failed (its
  // source node gone) fails the attempt. False for a stale id.
  bool CopyEnded(uint64_t id, bool done, TimeUs now);

  // A remote node agent's actions (remote_agents only): a message from
  // machine m's agent, and a launch of a ready task on m, checked as any
  // decision is (FailedPrecondition when refused).
  void NodeSend(MachineId m, const policy::Address& to, policy::Message message, TimeUs now);
  absl::Status NodeLaunch(MachineId m, const TaskRef& task, TimeUs now);
  // NodeKill: machine m's agent kills a launched or running task (checked
  // as a Kill from a local agent is).
  absl::Status NodeKill(MachineId m, const TaskRef& task, TimeUs now);
  // NodeStartPhase: machine m's agent starts the ready phase of a task
  // running there (checked as a StartPhase from a local agent is).
  absl::Status NodeStartPhase(MachineId m, const TaskRef& task, TimeUs now);

  void MachineUp(MachineId m, TimeUs now);
  void MachineDown(MachineId m, TimeUs now);
  // CancelJob ends an active job as failed, killing what it runs. False if
  // the job is not active.
  bool CancelJob(JobId id, TimeUs now);

  // ReleaseJobs: the caller no longer needs these ended jobs (the runtime's
  // retention compacted them): their run state goes (as the simulator's
  // streamed replay releases a job after its end: JobTracker::Release), and
  // they are freed in the workload (PagedStore::Free: a freed job reads as
  // Job{}, and a page of them goes), as are jobs never added to the engine
  // whose arrival has passed (placeholders). A released job's progress says
  // finished, with no stages or tasks. Jobs still active, or still to
  // arrive, are kept. Delivers what is due by `now` first, so the roles have
  // heard of the jobs' ends.
  void ReleaseJobs(std::span<const JobId> ids, TimeUs now);
  // held_jobs: jobs whose run state the engine holds (arrived, not released).
  uint64_t held_jobs() const;
  // held_job_pages: pages of per-job state held (the job tracker's, and the
  // job managers'): what the engine's memory grows with on a long-lived
  // scheduler.
  size_t held_job_pages() const;

  // Advance delivers every message, timer and notification due by `now`.
  void Advance(TimeUs now);
  // NextEventTime: when Advance next has something to do; -1 when nothing.
  TimeUs NextEventTime() const;

  // progress: the job's progress, or nullptr before it arrived.
  const policy::JobProgress* progress(JobId id) const;
  bool job_active(JobId id) const;
  const RunStats& stats() const;
  // cluster: capacity, allocation and measured usage per machine (for the
  // scheduler daemon's /metrics).
  const policy::ClusterState& cluster() const;
  uint64_t running_attempts() const;

 private:
  class AddedJobs;
  std::unique_ptr<AddedJobs> added_;  // before core_, which holds it as its job source
  std::unique_ptr<EngineCore> core_;
  LiveExecution* execution_ = nullptr;  // owned by core_
};

}  // namespace weft::sim
