// File: runtime/scheduler/results_export.h
//
// The scheduler's export (`weft export`, the live dashboard): the workload
// its jobs make, one row per journaled attempt and per job, and the phases
// and series the engine reported. ResultsExport keeps what the journal does
// not have (ended phases, the policy's recorded values: in memory since the
// daemon started) and builds the export from the job table, the journal's
// attempts and the results archive's compacted jobs. ArchivedJobs makes a
// compacted job's archive entry from the same rows, so that an export is the
// same before and after compaction.
//
// Not thread-safe: the core calls it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/job_table.h"
#include "metrics/records.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class ResultsExport {
 public:
  void OnPhaseEnd(const PhaseRecord& record) { phases_.push_back(record); }
  void OnSeries(const SeriesPoint& point);

  // Build: the export of every job in `jobs`, with the journal's `attempts`
  // and the compacted jobs' entries in `archived`.
  v1::ExportChunk Build(const JobTable& jobs, std::span<const AttemptRecord> attempts,
                        const std::map<uint32_t, v1::ArchivedJob>& archived, const Cluster& cluster,
                        const ReplicaIds& replica, std::string_view policy, int64_t epoch_unix_us) const;

 private:
  // The ended phases, for phases.csv: not journaled (a restarted scheduler
  // exports the phases since its start).
  std::vector<PhaseRecord> phases_;
  // The values the policy recorded (Context::Record), for series.csv: kept
  // like the phases.
  struct SeriesValue {
    TimeUs time_us = 0;
    std::string series;
    JobId job;
    double value = 0;
  };
  std::vector<SeriesValue> series_;
};

v1::AttemptRow AttemptRowOf(const AttemptRecord& a);

// ArchivedJobs: the archive entries of the ended jobs `ids`, whose journaled
// attempts are `attempts`: the rows Export would make of them.
std::vector<v1::ArchivedJob> ArchivedJobs(std::span<const uint32_t> ids, const JobTable& jobs,
                                          std::span<const AttemptRecord> attempts);

}  // namespace weft::runtime
