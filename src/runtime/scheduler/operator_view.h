// File: runtime/scheduler/operator_view.h
//
// What the operator's live page shows (docs/runtime.md, "Dashboard and
// metrics"), as JSON for /api/jobs and /api/nodes and as Prometheus
// histograms for /metrics: running and queued jobs with user, progress, age
// and stage; recent task failures with their reason; per-user shares now
// and over time (share_history.h);
// nodes with up/down, capacity, reserved and measured use; queue-wait and
// job-completion-time histograms of the ended jobs.
//
// The data is what `weft status` and `weft nodes` already read (a
// StatusReply) and what `weft export` reads (an ExportChunk: the jobs' users
// and stages, ended attempts, job rows). Plain functions of their inputs: no
// I/O, no clock (the caller gives the scheduler's time `now_s`), so they are
// unit-tested with hand-written replies. Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/scheduler/share_history.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// ExportFacts: what the page needs of an export, keyed by global job id.
struct ExportFacts {
  struct Stage {
    std::string name;
    uint64_t tasks = 0;
    uint64_t done = 0;  // ok attempts journaled (one per task)
  };
  struct Job {
    std::string user;  // empty: none given
    std::vector<Stage> stages;
  };
  absl::flat_hash_map<uint32_t, Job> jobs;
  int64_t epoch_unix_us = 0;  // the Unix time the scheduler's clock counts from
  // Ended jobs (succeeded, failed, cancelled), in seconds: from arrival to
  // the first start (those that started) and to the end.
  std::vector<double> queue_wait_s;
  std::vector<double> completion_s;
};

// ExportFactsOf reads `chunk` (one scheduler's export, header included). A
// workload it cannot parse leaves users and stages out (the page then shows
// none) rather than failing: the page must keep showing what it can.
ExportFacts ExportFactsOf(const v1::ExportChunk& chunk);

// CurrentStage: the first stage of `job` with tasks not done ("" when all are
// done or the stages are not known): where a chain of stages is now; in a
// DAG, the earliest stage still open.
std::string CurrentStage(const ExportFacts::Job& job);

// kMaxFailures: how many recent failures /api/jobs lists, newest jobs first;
// kMaxJobs: how many active jobs it lists, the running ones first, then the
// oldest queued (it counts them all).
inline constexpr size_t kMaxFailures = 20;
inline constexpr size_t kMaxJobs = 100;

// OperatorJobsJson: /api/jobs: the scheduler's summary, the active jobs
// (waiting or running; their numbers, and at most kMaxJobs of them listed)
// with their progress and age at `now_s` (scheduler
// time, seconds), the held jobs' last task failures, running tasks per
// user now ("shares") and over time ("share_history": `history`'s Json).
std::string OperatorJobsJson(const v1::StatusReply& status, const ExportFacts& facts, double now_s,
                             const ShareHistory& history);

// RunningByUser: the running tasks of the active jobs of `status`, summed
// per user ("" for jobs without one): what ShareHistory samples.
std::map<std::string, uint64_t> RunningByUser(const v1::StatusReply& status, const ExportFacts& facts);

// OperatorNodesJson: /api/nodes: each node (status.nodes, asked with
// StatusRequest.nodes) with up, capacity, reserved and measured use.
std::string OperatorNodesJson(const v1::StatusReply& status);

// JobTimeHistograms: the Prometheus text format of two histograms over the
// ended jobs: weft_job_queue_wait_seconds and weft_job_completion_seconds,
// with cumulative buckets, _sum and _count.
std::string JobTimeHistograms(const ExportFacts& facts);

// UserGauges: per-user series in the Prometheus text format, from the
// active jobs of `status`: weft_user_running_tasks and weft_user_active_jobs,
// label `user` ("" for jobs without one); nothing when no job is active.
std::string UserGauges(const v1::StatusReply& status, const ExportFacts& facts);

}  // namespace weft::runtime
