// File: trace/google_2011.h
//
// Reader of the Google cluster-data 2011 (Borg, clusterdata-2011-2) tables as
// Google publishes them: headerless CSV, gzip parts, one folder or file name
// per table (task_events, job_events, machine_events, task_usage). Only
// task_events is required.
//
//  - A job is a bag of independent tasks; its tasks are grouped by demand
//    into stages (task_groups.h). A task is kept when the files hold both its
//    SUBMIT and, as its last terminal event, a FINISH; its duration is FINISH
//    minus its last SCHEDULE. Demand = (cpu_request, memory_request), in the
//    trace's normalized units: 1 = the largest machine of the cell.
//  - Job arrival = the earliest SUBMIT of its kept tasks, in trace seconds.
//  - Cluster: machine_events (machines grouped by capacity; a machine's last
//    ADD or UPDATE before the end of the files counts, REMOVE takes it out
//    unless it comes back), else 12,583 machines of capacity 1 x 1 (the cell's
//    size, each as large as the largest machine).
//  - job_events gives each job's end: rows of a job after it are skipped
//    (late). task_events is read twice: a first pass applies these rules and
//    counts every skip, holding the tasks of the jobs active in the trace (and
//    an index of job ends, 16 bytes a job), and indexes each job with a kept
//    task: its arrival, final priority, which of its tasks are kept (a bit a
//    task, trace/kept_indexes.h, stored only for a job some task of which is
//    not) and the time of their last row (32 bytes a job). The second holds
//    only the kept tasks of the kept jobs until that row and passes each job
//    then, the earliest arrival of those it holds its watermark.
//  - task_usage (optional): each task's mean cpu rate and canonical memory
//    usage, weighted by the measurement windows' lengths; a stage's usage is
//    the mean over its tasks, capped at its demand. Read into an index first
//    (24 bytes a task).
// Not thread-safe: one read per thread.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadGoogle2011(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
