// File: trace/alibaba_2018.h
//
// The alibaba-2018 trace format: Alibaba cluster-trace-v2018 batch_task, in
// the native layout or the ERDOS DAG subsets, converted by alibaba_reader.h
// (its header lists the rules) and passed through a TraceEmitter like every
// other format. The cluster is Alibaba 2018's: 4,034 machines of 96 cores,
// memory 100 (plan_mem is a percentage of a machine). Arrivals are relative
// to the earliest job kept (alibaba_reader.h).
//
// batch_instance (optional; any file whose path contains "batch_instance",
// native 14 columns) refines the kept jobs' stages from their Terminated
// instances, by the rules alibaba-2017 shares (trace/alibaba_instances.h): when a stage has exactly instance_num of them, each task runs
// its instance's end_time - start_time ("durations"; 0 s becomes 1 s),
// else every task runs their mean (counted); usage = the mean cpu_avg / 100
// and mem_avg, capped at the demand (values the trace marks invalid, -1 and
// 101, left out), read again per batch (below), each row counted once.
//
// batch_task is read in passes (trace/arrival_batches.h): the first checks
// each job as its rows end (the ERDOS files hold a job's rows together),
// counts the skips and indexes the usable jobs (name, arrival, rows); then
// the jobs are collected in arrival order (ties by name), at most
// TraceOptions::max_held_rows rows a pass, and passed on, each built just
// before (with batch_instance, the batch's jobs at once). A file in which a
// job's rows are apart is read whole, as `weft convert` reads it. Plain
// files only (alibaba_rows.h). Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadAlibaba2018(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
