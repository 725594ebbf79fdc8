// File: runtime/scheduler/status_reply.h
//
// How `weft status` sees a job: the state and progress lines of the reply
// (proto/weft/v1 StatusReply), written from the job table, the engine's
// progress and, for a compacted job, the results archive; and LastFailures,
// what the nodes said of each held job's last failed attempt. The functions
// only read; LastFailures is not thread-safe (the core holds its lock).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "metrics/records.h"

#include "policy/job_view.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/node_outbox.h"
#include "runtime/scheduler/node_slots.h"
#include "runtime/scheduler/scheduler_metrics.h"
#include "runtime/scheduler/results_archive.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// JobStateText: an ended job's state, else "running" once a task of it has
// run or runs (progress: the engine's, null when it holds none), else "waiting".
std::string JobStateText(const JobInfo& info, const policy::JobProgress* progress);

// LastFailures: why each held job's last failed attempt failed, as its
// node's task-end report said (exit code or signal, the node's reason, the
// tail of its stderr): one small record per job with a failure, replaced by
// the next, forgotten when the job is compacted. In memory only: after a
// restart a job's earlier failures have no reason (the journal keeps the
// attempts' outcomes, not their exit codes).
class LastFailures {
 public:
  // Note: `record` (a failed attempt) ended as `end` reported on `node`.
  void Note(const AttemptRecord& record, const std::string& node, const v1::TaskEnd& end);
  const v1::TaskFailure* Find(uint32_t job) const;
  void Forget(uint32_t job) { by_job_.erase(job); }

 private:
  absl::flat_hash_map<uint32_t, v1::TaskFailure> by_job_;
};

// FillJobStatus: the status line of a held (not compacted) job, with its
// last failure (null: none).
void FillJobStatus(const JobInfo& info, uint32_t global_id, const policy::JobProgress* progress,
                   const v1::TaskFailure* last_failure, v1::JobStatus& s);

// FillNodeStatuses: the nodes' lines of `weft nodes`: each registered slot's
// name, up and capacity, with what the engine's snapshot (`engine`, empty
// before the cluster is complete) says it reserved and measured there.
void FillNodeStatuses(const NodeSlots& slots, const NodeOutbox& outbox,
                      const std::vector<SchedulerMetrics::NodeSnapshot>& engine, v1::StatusReply& reply);

// FillCompactedStatus: what is left of a compacted job (local id `job`), read
// from where `archive` keeps it; "unknown" (and an error logged) when it is
// not there.
void FillCompactedStatus(const ResultsArchive& archive, uint32_t job, uint32_t global_id, v1::JobStatus& s);

}  // namespace weft::runtime
