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
// Streaming: an instance's rows may be anywhere in the files (a BigQuery
// export is in no order), so instance_events is read twice. The first pass
// keeps 48 bytes of each instance (its key, what decides whether it is
// kept, and where its last row is), counts the skips, and indexes each collection with
// a kept instance (arrival, last row of a kept instance, a bit per kept
// index); the per-instance state is dropped, and instance_usage read for the
// kept instances only. The second pass holds the kept instances of
// the workflows not passed yet and passes each workflow as soon as the
// stream is past its kept instances' last row, stating as watermark the
// earliest arrival of the workflows not passed (JobSink::NoArrivalBefore).
// So a replay's memory follows the workflows running in the files, not the
// files (for files in time order). Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadGoogle2019(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
