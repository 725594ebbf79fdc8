// File: trace/tpch_cloudlab.h
//
// Reader of the ERDOS TPC-H CloudLab profiles as flattened in
// ../shared/data/tpch-spark-cloudlab-erdos/tpch_cloudlab_stages.csv (by its
// to_csv.py from cloudlab_22query_tpch_profiles.json and queries.yaml):
//   query,input_size,spark_max_cores,stage_id,num_tasks,avg_task_runtime_ms,children,stage_name
// A job per (query, input_size, spark_max_cores), named Q1-50g-50; a stage
// per row with num_tasks tasks of avg_task_runtime_ms each (at least 1 ms:
// the profiles round short stages to 0), barrier edges to `children`; each
// task demands 1 core. The data has no arrivals: every job arrives at 0.
// A job's rows must be consecutive (as to_csv.py writes them), so memory
// holds one job. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadTpchCloudlab(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
