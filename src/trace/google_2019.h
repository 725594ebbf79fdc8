// File: trace/google_2019.h
//
// Reader of the Google cluster-data 2019 trace (clusterdata v3, "Borg: the
// Next Generation") as BigQuery exports it: newline-delimited JSON, plain or
// gzip, sharded, one folder or file name per table (collection_events,
// instance_events, machine_events, instance_usage), field names as in
// clusterdata_trace_format_v3.proto; int64 values may be JSON numbers or
// strings (BigQuery writes strings). Only instance_events is required.
// Written from the schema alone: no rows of the real trace were available,
// so it is tested on small files made to the schema.
//
//  - Tasks (instances) as in google-2011: kept when the files hold their
//    SUBMIT and, as last terminal event, a FINISH; duration = FINISH - last
//    SCHEDULE; demand = resource_request (cpus, memory), normalized units.
//    Instances of alloc sets (collection_type 1) are not work and are skipped.
//  - A collection (job) is a bag of tasks, grouped by demand into stages.
//    start_after_collection_ids makes collections a DAG: collections linked
//    by it become one weft job (a workflow, named after its lowest
//    collection id), each collection's stages waiting (barrier) for every
//    stage of the collections it starts after. parent_collection_id means
//    ownership (a child dies with its parent), not order: it is not an edge.
//  - Arrival: the earliest SUBMIT of a job's kept tasks. Cluster:
//    machine_events (grouped by capacity) or 12,000 machines of 1 x 1.
//  - instance_usage: each task's mean average_usage, weighted by window.
// Workflows can span the whole trace, so kept tasks (compactly, ~40 bytes
// each) stay in memory until the end of the files. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadGoogle2019(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
