// File: trace/decima_tpch.h
//
// Reader of Decima's TPC-H Spark profiles (hongzimao/decima-sim), as
// flattened in ../shared/data/decima-tpch by its to_csv.py:
//   decima_tpch_stages.csv          input_size,query,stage,num_tasks,children,mean_task_ms,n_duration_samples,executor_counts_profiled
//   decima_tpch_task_durations.csv.gz  input_size,query,stage,num_executors,wave,duration_ms
// PATH is the folder or the two files. A job per (input_size, query), named
// q1-2g; a stage per stage row with num_tasks tasks and barrier edges to its
// children; each task's duration is drawn (with replacement, by --seed) from
// all of its stage's samples, every wave and executor count pooled. A stage
// with no sample uses mean_task_ms for every task (counted). Each task
// demands 1 core; the data has no arrivals, so every job arrives at 0, as in
// Decima's batch experiments.
// Streams the samples: memory holds the stage table and one stage's samples.
// Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadDecimaTpch(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
