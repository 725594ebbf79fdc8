// File: runtime/scheduler/scheduler_core.h
//
// SchedulerCore: the brain of `weftd scheduler`, between the gRPC service and
// the policy. It owns the policy (any registered one), run by a
// sim::LiveEngine inside a ClusterRun once the cluster is complete, the
// journal, the node slots and each connected node's link, and turns
//   - client requests (submit, status, cancel, export),
//   - node events (registration, task ends, heartbeats with measured usage,
//     a broken stream) and
//   - the passing of time (the policy's timers, heartbeat deadlines; read
//     from the injected Clock, clock.h)
// into engine calls, and the engine's launches and kills into messages to
// the nodes.
//
// Guarantees (docs/runtime.md): a job is journaled before Submit returns its
// id; every attempt end and job end is journaled before anything else can
// observe it (status, export) and before the launches it caused are sent. On
// Open, the journal is replayed: the cluster, the jobs, and the tasks that
// finished, which are not run again.
//
// Group commit: events from the nodes arrive on several threads; each takes
// the lock, applies its event, and commits and sends only if no other
// thread is queued for the lock; otherwise the next holder does, for both.
// Status and Export commit first, so they never see what is not journaled.
//
// The core is the coordinator: it owns the lock, the journal and the policy,
// and the order in which things happen (journal, then apply, then send). The
// parts it coordinates keep their own state, each under its lock
// (runtime/scheduler/):
//   cluster_run.h      the engine, once the cluster is complete (and only then)
//   job_table.h        every accepted job, and the per-scheduler limits
//   done_elsewhere.h   tasks a failed-over submission brings as already done
//   status_reply.h     the status lines of `weft status`
//   metrics_snapshot.h the job table's part of a /metrics snapshot
//   journal_recovery.h what Open reads back from the journal and archive
//   node_outbox.h      node sessions and what waits to be sent to each
//   node_leases.h      the nodes' leases: when a lost node's tasks may run elsewhere
//   attempt_launches.h launches (command templating), phase starts, reservations
//   agent_relay.h      traffic with the policy's node agents
//   results_export.h   the export rows, and phases and series kept in memory
//   retention.h        which ended jobs are due for compaction
//   clock.h            the time (injected: tests run on a FakeClock)
// Every batch of journal writes goes through a JournalTransaction
// (runtime/journal_transaction.h), and what the nodes send is read through
// runtime/wire.h.
//
// Thread-safe: every public method takes the one lock; the engine and the
// policy only ever run under it.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "policy/registry.h"
#include "runtime/journal.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/agent_relay.h"
#include "runtime/scheduler/attempt_launches.h"
#include "runtime/scheduler/clock.h"
#include "runtime/scheduler/cluster_run.h"
#include "runtime/scheduler/job_intake.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/journal_recovery.h"
#include "runtime/scheduler/node_leases.h"
#include "runtime/scheduler/node_outbox.h"
#include "runtime/scheduler/node_slots.h"
#include "runtime/scheduler/results_archive.h"
#include "runtime/scheduler/results_export.h"
#include "runtime/scheduler/retention.h"
#include "runtime/scheduler/scheduler_metrics.h"
#include "runtime/scheduler/status_reply.h"
#include "runtime/scheduler/submission_keys.h"
#include "sim/live_engine.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

struct SchedulerConfig {
  std::string policy;               // empty: the journal's, else fifo
  std::vector<std::string> params;  // k=v
  uint32_t nodes = 1;               // how many nodes the cluster has
  std::filesystem::path state_dir;
  uint32_t max_attempts = 4;
  TimeUs heartbeat_us = 500'000;      // nodes send a heartbeat this often
  TimeUs node_timeout_us = 5'000'000; // a node silent this long is lost
  // A node's lease (node_leases.h, docs/runtime.md "Node loss"): each
  // answered heartbeat lets the node run its tasks for lease_us more; a lost
  // node's tasks run elsewhere only lease_margin_us after its last lease ran
  // out. The node renews it every lease_us / 5 (or at its heartbeat, if
  // more often), so a scheduler slow to answer for most of a lease pauses
  // the tasks (frozen) rather than failing anything.
  TimeUs lease_us = 1'000'000;
  TimeUs lease_margin_us = 500'000;
  uint64_t seed = 1;
  // NORMAL survives a kill -9 of the daemon (what the runtime promises);
  // FULL also survives power loss, at an fsync (~5 ms here) per commit.
  JournalSync sync = JournalSync::kNormal;
  // Per-scheduler limits over the jobs that have not ended (bug 3 of issue
  // 20): a submission that would pass one is refused (ResourceExhausted).
  // The defaults keep the engine's per-task state and the descriptions to a
  // few hundred MB.
  uint64_t max_tasks_in_flight = 20'000'000;
  uint64_t max_job_bytes = uint64_t{1} << 30;
  // Retention (issue 20): ended jobs beyond the newest retain_jobs ended
  // ones, or ended more than retain_age_us ago (0: no age limit), are
  // compacted out of memory and the journal; their export rows go to the
  // results archive first (results_archive.h). Default: keep everything.
  uint64_t retain_jobs = UINT64_MAX;
  TimeUs retain_age_us = 0;
  // Which of several scheduler daemons sharing the nodes this one is
  // (replica_ids.h); only for policies whose node agents run on the nodes.
  ReplicaIds replica;
  // Where the core reads the time and its clock thread sleeps (clock.h);
  // null: the real clock. Tests give a FakeClock.
  std::shared_ptr<Clock> clock;
};

class SchedulerCore final : public sim::AttemptExecutor, public RunObserver {
 public:
  // Open opens (or creates) the journal in config.state_dir and recovers
  // from it. InvalidArgument for a bad policy, parameters, or a state dir
  // made for another policy.
  static absl::StatusOr<std::unique_ptr<SchedulerCore>> Open(const SchedulerConfig& config);
  ~SchedulerCore() override;

  // Client API. Job ids here are global (replica_ids.h): NotFound for a job
  // of another replica.
  // `done`: tasks of the submitted jobs already done elsewhere (failover:
  // a dead daemon journaled them ok), journaled with the jobs (meta
  // done:ID) and never run; InvalidArgument for one that names no task.
  // moved_from: the global id + 1 of the job they continue (for the log).
  // `key`: the client's idempotency key (submission_keys.h; empty: none):
  // a key already journaled returns the ids it was given and adds nothing.
  absl::StatusOr<std::vector<uint32_t>> Submit(std::string_view workload_json,
                                               std::vector<v1::DoneTask> done = {}, uint32_t moved_from = 0,
                                               std::string_view key = {});
  v1::StatusReply Status(const v1::StatusRequest& request);
  absl::Status Cancel(uint32_t job);
  absl::StatusOr<v1::ExportChunk> Export();

  // Metrics for /metrics (runtime/scheduler/scheduler_metrics.h): the
  // counters live as events happen; RefreshMetrics sets the gauges from the
  // journaled state now. The service counts its RPCs in metrics() too.
  SchedulerMetrics& metrics() { return metrics_; }
  void RefreshMetrics();
  // HeldJobPages: the pages of per-job memory held (the job table's, and the
  // live workload's jobs, each page PagedStore's kPageSize jobs): what the
  // core's memory grows with as it accepts jobs, and what retention keeps
  // bounded by the jobs retained and active.
  struct HeldJobPages {
    size_t table = 0;
    size_t workload = 0;
  };
  HeldJobPages held_job_pages() const;

  // Node channel.
  struct Session {
    uint32_t slot = 0;
    uint64_t generation = 0;
  };
  absl::StatusOr<Session> RegisterNode(const v1::Register& request, NodeLink* link);
  void OnNodeMessage(const Session& session, const v1::NodeMessage& message);
  void NodeGone(const Session& session);

  // RunClock delivers due timers and checks heartbeat deadlines until Stop.
  void RunClock();
  void Stop();

  // sim::AttemptExecutor (called by the engine, under the lock).
  void StartAttempt(const sim::AttemptLaunch& launch) override;
  void KillAttempt(uint64_t id, MachineId machine) override;
  void StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase) override;
  bool CopyBytes(uint64_t id, MachineId to, MachineId from, double mb) override;
  void DeliverToNode(MachineId machine, const sim::NodeMail& mail) override;
  // RunObserver (called by the engine, under the lock).
  void OnAttemptStart(const AttemptStart& start) override;
  void OnReservationChange(const ReservationChange& change) override;
  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  void OnPhaseEnd(const PhaseRecord& record) override;
  void OnSeries(const SeriesPoint& point) override;

 private:
  class EventLock;

  explicit SchedulerCore(const SchedulerConfig& config);
  absl::Status Recover();
  // StartRun starts the policy on the complete cluster (run_), with the
  // machines `up`; the policy's refusal to start.
  absl::Status StartRun(const std::vector<bool>& up);
  // run: what holds every job's run. Call only where a job exists: jobs
  // exist only on a complete cluster (Submit refuses them before, and Open
  // reads none without it), so run_ is set.
  ClusterRun& run() { return *run_; }
  // NextEngineEventUs: when the engine has something due next; -1 for
  // nothing, also before the cluster is complete.
  TimeUs NextEngineEventUs() const { return run_ ? run_->NextEventTime() : -1; }
  // AddLiveJob hands an accepted job (in jobs_ already) to the engine; cannot fail.
  void AddLiveJob(JobId id, LiveJob built, TimeUs now, std::span<const AttemptRecord> history);
  // AcceptingJobs: Unavailable while the cluster is incomplete or the journal failing.
  absl::Status AcceptingJobs() const;
  // KnownSubmission: the global ids a submission under `key` was given, if
  // `key` is journaled; InvalidArgument when it was for another workload.
  std::optional<absl::StatusOr<std::vector<uint32_t>>> KnownSubmission(std::string_view key, uint64_t digest) const;
  TimeUs NowUs() const;
  // Flush journals what the engine reported, then sends what it decided. If
  // the commit fails (a full disk), nothing is sent: the events and what
  // they caused stay queued, journal_error_ says why, Submit refuses new
  // jobs, and the next Flush (the next event, or the clock's tick) retries.
  void Flush();
  // CommitPending journals the pending attempt and job ends in one
  // transaction and only then applies them to jobs_ (status, export).
  absl::Status CommitPending();
  // FlushUnlessQueued: Flush, unless another thread is queued for the lock
  // (it will flush after its own event, so a burst of events shares one
  // commit: group commit), up to kMaxDeferredEvents events.
  void FlushUnlessQueued();
  // LoseNode: the node in `slot` is gone (its session ended, its stream
  // closed if `close`); the engine hears that its machine is down once the
  // node's lease has run out (ReleaseHeldMachines).
  void LoseNode(uint32_t slot, TimeUs now, bool close);
  // ReleaseHeldMachines: the machines whose nodes' leases have run out by
  // `now` go down in the engine (their tasks run elsewhere), and come up
  // again if their node has registered meanwhile.
  void ReleaseHeldMachines(TimeUs now);
  // Retention: compacts what retention_ no longer keeps (best effort: a
  // failure keeps the jobs for the next try).
  void MaybeCompact(TimeUs now);
  // Compact archives the ended jobs' export rows, then deletes them from the
  // journal and memory.
  absl::Status Compact(const std::vector<uint32_t>& jobs);

  SchedulerConfig config_;
  mutable std::mutex mu_;
  std::atomic<int> queued_{0};  // threads waiting for mu_ through an EventLock
  int deferred_events_ = 0;     // events applied since the last Flush
  TimeUs clock_wakes_at_us_ = 0;    // when the clock thread will wake by itself
  bool stopping_ = false;

  std::unique_ptr<Journal> journal_;
  Clock& clock_;                // config_.clock's
  TimeUs clock_offset_us_ = 0;  // daemon time at clock_start_us_
  int64_t epoch_unix_us_ = 0;   // the Unix time daemon time 0 stands for
  TimeUs clock_start_us_ = 0;   // clock_.NowUs() when the daemon's time was set

  policy::BuiltPolicy built_;
  std::vector<std::string> params_;  // as given (k=v), for the nodes' agents
  NodeSlots slots_;
  NodeOutbox outbox_;
  NodeLeases leases_{config_.lease_us, config_.lease_margin_us};
  Workload live_;  // the cluster once complete, and every job ever accepted (JobId = index)
  absl::flat_hash_map<std::string, UserId> users_;
  JobTable jobs_;
  SubmissionKeys submission_keys_;  // idempotency keys of the journaled submissions
  AgentRelay relay_{outbox_, jobs_, config_.replica};
  Retention retention_{config_.retain_jobs, config_.retain_age_us};
  ResultsExport export_;
  ResultsArchive archive_{config_.state_dir};
  DataTransfers transfers_{outbox_};  // nodes' data ports and the tickets of their transfers
  AttemptLaunches launches_{outbox_, transfers_, live_, config_.replica};
  std::unique_ptr<ClusterRun> run_;  // null until the cluster is complete
  LastFailures last_failures_;       // why each held job's last failed attempt failed

  std::string journal_error_;  // the last commit's failure; empty while commits succeed
  std::vector<AttemptRecord> pending_attempts_;
  std::vector<JobRecord> pending_job_ends_;
  absl::flat_hash_set<uint32_t> cancelling_;  // jobs whose end is a cancel
  SchedulerMetrics metrics_;
};

}  // namespace weft::runtime
