// File: runtime/scheduler/cluster_run.h
//
// ClusterRun: the policy at work on a complete cluster. The scheduler makes
// one when the last expected node registers (or when the journal says the
// cluster was complete) and never before: the engine (sim::LiveEngine) needs
// every machine of the cluster, so whatever needs the engine (jobs, their
// progress, the nodes' reports and the policy's timers) lives here, and the
// core asks "is the cluster complete?" once per entry point instead of
// testing for an engine at every use.
//
// A ClusterRun turns what the nodes report (proto/weft/v1, converted in
// wire.h) and the core's decisions (a job accepted, cancelled or compacted,
// a node up or down, the passing of time) into engine calls; the engine
// answers through the executor and observer the core gives it.
//
// Threading: not thread-safe; the core calls it under its lock only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "model/workload.h"
#include "policy/registry.h"
#include "runtime/scheduler/agent_relay.h"
#include "runtime/scheduler/node_outbox.h"
#include "runtime/scheduler/scheduler_metrics.h"
#include "sim/live_engine.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class ClusterRun {
 public:
  struct Options {
    uint64_t seed = 1;
    uint32_t max_attempts = 4;
    uint32_t replicas = 1;                // scheduler daemons sharing the nodes (replica_ids.h)
    std::vector<std::string> params;     // the policy's, as given (k=v), for the nodes' agents
  };

  // The engine over `live` (whose cluster is complete), running `built`'s
  // policy; its launches and kills go to `executor`, what happens to
  // `observer`. All three must outlive the ClusterRun. Start it next.
  ClusterRun(Workload& live, const policy::BuiltPolicy& built, const Options& options,
             sim::AttemptExecutor& executor, RunObserver& observer);
  ClusterRun(const ClusterRun&) = delete;
  ClusterRun& operator=(const ClusterRun&) = delete;

  // Start hands the engine to `relay` (the policy's node agents run on the
  // nodes, agent_relay.h) and starts the policy at `now` with the machines
  // `up`. The policy's refusal to start (its error).
  absl::Status Start(AgentRelay& relay, TimeUs now, const std::vector<bool>& up);

  // Jobs (ids: JobId = index in the live workload).
  void AddJob(JobId id, TimeUs now, TimeUs arrival, std::span<const AttemptRecord> history) {
    engine_.JobAdded(id, now, arrival, history);
  }
  // Cancel: false when the job has not arrived yet (the engine has nothing to cancel).
  bool Cancel(JobId id, TimeUs now) { return engine_.CancelJob(id, now); }
  // Release forgets ended jobs (retention): their run state and live jobs.
  void Release(std::span<const JobId> ids, TimeUs now) { engine_.ReleaseJobs(ids, now); }
  // Progress of an active job; null for one the engine does not hold.
  const policy::JobProgress* progress(JobId id) const { return engine_.progress(id); }

  // What a node reported, on the node's slot (its MachineId): attempt ends,
  // phase ends and the usage of running attempts.
  void OnTaskEnds(const v1::TaskEnds& ends, TimeUs now);
  void OnPhaseEnds(const v1::PhaseEnds& ends, TimeUs now);
  void OnCopyEnds(const v1::CopyEnds& ends, TimeUs now);
  void OnHeartbeat(const v1::Heartbeat& heartbeat, TimeUs now);
  // reporting: while OnTaskEnds hands one end to the engine, the node's
  // report of it (the observer's OnAttemptEnd can keep why it failed); null
  // otherwise.
  const v1::TaskEnd* reporting() const { return reporting_; }

  void MachineUp(uint32_t slot, TimeUs now) { engine_.MachineUp(MachineId(slot), now); }
  void MachineDown(uint32_t slot, TimeUs now) { engine_.MachineDown(MachineId(slot), now); }

  // Advance runs what is due by `now` (the policy's timers); NextEventTime:
  // when the next thing is due, or -1 for nothing.
  void Advance(TimeUs now) { engine_.Advance(now); }
  TimeUs NextEventTime() const { return engine_.NextEventTime(); }

  // AddToSnapshot adds the engine's part of the metrics: each job's queued
  // and running tasks (to the active jobs among `active`), the refused
  // decisions, and every node (up: connected in `outbox`).
  void AddToSnapshot(std::span<const uint32_t> active, const NodeOutbox& outbox, SchedulerMetrics::Snapshot& s) const;

 private:
  Workload& live_;
  const policy::BuiltPolicy& built_;
  Options options_;
  sim::LiveEngine engine_;
  const v1::TaskEnd* reporting_ = nullptr;
};

}  // namespace weft::runtime
