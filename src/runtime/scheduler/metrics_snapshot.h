// File: runtime/scheduler/metrics_snapshot.h
//
// The job table's part of a /metrics snapshot (scheduler_metrics.h): jobs by
// state and tasks done, the compacted ones included, from what is journaled.
// The engine's part (queued and running tasks, nodes, refused decisions) is
// ClusterRun::AddToSnapshot's. Thread-safe: a plain function (the caller
// holds the table).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/scheduler_metrics.h"

namespace weft::runtime {

// JobsSnapshot counts `jobs` into a snapshot and lists the held jobs that
// are still active in `active` (for the engine's part).
SchedulerMetrics::Snapshot JobsSnapshot(const JobTable& jobs, std::vector<uint32_t>& active);

}  // namespace weft::runtime
