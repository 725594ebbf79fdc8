// File: trace/swim.h
//
// Reader of SWIM's Facebook Hadoop workloads (SWIMProjectUCB/SWIM
// workloadSuite, FB-2009 and FB-2010): headerless TSV,
//   job_id submit_time_s inter_job_gap_s map_input_bytes shuffle_bytes reduce_output_bytes [input_path]
// Each row is a job: a map stage, then (when it shuffles) a reduce stage
// behind a barrier. The traces give bytes, not tasks or times, so a
// documented model derives them (docs/traces.md):
//  - maps = ceil(map_input_bytes / 128 MiB), at least 1 (one HDFS block each);
//    reduces = ceil(shuffle_bytes / 1 GiB), at least 1, when shuffle_bytes > 0;
//  - a task's duration = its bytes / 100 MiB/s (a map reads its split; a
//    reduce reads its shuffle share and writes its output share; a map-only
//    job's maps also write its output), at least 1 ms;
//  - every task demands 1 core and 1 GB; the cluster is 600 machines of
//    8 cores and 32 GB (the FB-2009 cluster's size in the SWIM paper).
// Arrival = submit_time_s. With several files, job names get the file's name
// as a prefix and the files' rows are merged by submit time (ties: the file
// given first). Streams: one row per file is held, and the smallest current
// submit time is the replay's watermark; a row whose submit time is before
// its file's row above is refused (SWIM's files are in submit order). Not
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadSwim(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
