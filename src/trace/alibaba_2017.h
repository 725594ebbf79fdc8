// File: trace/alibaba_2017.h
//
// Reader of Alibaba cluster-trace-v2017's batch_task table: eight columns
//   task_create_time,task_end_time,job_id,task_id,instance_num,status,plan_cpu,plan_mem
// headerless as published, or with one header row (as in
// ../shared/data/alibaba-v2017-batch-task). The trace gives no dependencies:
// a job is a set of independent tasks, one stage per task (named t<task_id>)
// with instance_num weft tasks, each running task_end_time -
// task_create_time seconds (the task's span: an upper bound for one
// instance; 0 s spans become 1 s, the trace's resolution), demanding
// plan_cpu / 100 cores and plan_mem (normalized memory: 1 = a machine).
// Only Terminated tasks with both requests are kept; a job's arrival is its
// earliest kept task's creation (tasks created before the trace start arrive
// at 0). The cluster: 1,300 machines of 64 cores (the v2017 cluster).
// Of a task listed twice, the earliest-created row is kept (ties: the first
// in the files). The file is not ordered by job (nor by time): a first pass
// checks every row and indexes each job (id, arrival, kept rows: 24 bytes a
// job), then the jobs are passed in arrival order (ties by job id), in
// batches of at most TraceOptions::max_held_rows kept rows, each collected by
// a pass over the files (trace/arrival_batches.h).
// batch_instance (optional; any file whose path contains "batch_instance",
// the v2017 schema's 12 columns, no header) refines each kept stage from
// its Terminated instance rows, as alibaba-2018's does (the rules:
// trace/alibaba_instances.h): a task per instance with its own end - start
// when the rows number instance_num, else their mean; usage from
// real_cpu_avg (cores) and real_mem_avg. Read once per batch. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadAlibaba2017(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
