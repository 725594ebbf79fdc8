// File: trace/trace_stats.h
//
// The distributions part of the data-quality report (`weft trace inspect`):
// time span and arrival rate, task durations, demands, and the shape of the
// DAGs (depth, width), computed job by job as a trace is read
// (TraceStatsSink), so the trace never sits in memory as a workload. What is
// kept for exact quantiles: a duration per task of a stage whose tasks differ
// (8 bytes a task), and a few values per stage and per job. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/job.h"
#include "trace/trace_source.h"
#include "trace/workload_reader.h"

namespace weft {

// Quantiles: exact quantiles of values each counted once or `weight` times
// (a stage's tasks alike).
class Quantiles {
 public:
  void Add(double value, uint64_t weight = 1);
  // Line: "p50 a, p90 b, p99 c, max d" (or "none"); sorts the values kept.
  std::string Line();

 private:
  double Quantile(double q) const;

  std::vector<double> ones_;                          // values of weight 1
  std::vector<std::pair<double, uint64_t>> weighted_;  // the others
  uint64_t total_ = 0;
};

// WorkloadStats: the report's distributions, a job at a time.
class WorkloadStats {
 public:
  void Add(const Job& job);
  // Lines: one per figure, "name: values", on a cluster of `machines`.
  std::vector<std::string> Lines(size_t machines);

 private:
  uint64_t jobs_ = 0, stages_ = 0, tasks_ = 0;
  TimeUs first_ = 0, last_ = 0;
  Quantiles duration_, cpu_, mem_, tasks_per_job_, stages_per_job_, depth_, width_;
};

// TraceStatsSink builds each job with the weft reader's checks
// (WorkloadBuilder::BuildJob), adds it to its stats and forgets it.
class TraceStatsSink : public JobSink {
 public:
  absl::Status Cluster(const nlohmann::json& cluster) override;
  absl::Status Job(const nlohmann::json& job) override;
  std::vector<std::string> Lines() { return stats_.Lines(builder_.workload().cluster.size()); }

 private:
  WorkloadBuilder builder_;
  WorkloadStats stats_;
};

}  // namespace weft
