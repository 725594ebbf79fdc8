// File: runtime/scheduler/status_reply.h
//
// How `weft status` sees a job: the state and progress lines of the reply
// (proto/weft/v1 StatusReply), written from the job table, the engine's
// progress and, for a compacted job, the results archive. Read only.
// Thread-safe: plain functions (the caller holds what they read).
#pragma once

#include <cstdint>
#include <string>

#include "policy/job_view.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/results_archive.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// JobStateText: an ended job's state, else "running" once a task of it has
// run or runs (progress: the engine's, null when it holds none), else "waiting".
std::string JobStateText(const JobInfo& info, const policy::JobProgress* progress);

// FillJobStatus: the status line of a held (not compacted) job.
void FillJobStatus(const JobInfo& info, uint32_t global_id, const policy::JobProgress* progress, v1::JobStatus& s);

// FillCompactedStatus: what is left of a compacted job (local id `job`), read
// from where `archive` keeps it; "unknown" (and an error logged) when it is
// not there.
void FillCompactedStatus(const ResultsArchive& archive, uint32_t job, uint32_t global_id, v1::JobStatus& s);

}  // namespace weft::runtime
