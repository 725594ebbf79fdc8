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
// The file is not ordered by job, so a compact record per kept task (about
// 48 bytes) stays in memory until the end. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadAlibaba2017(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
