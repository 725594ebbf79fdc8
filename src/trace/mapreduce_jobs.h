// File: trace/mapreduce_jobs.h
//
// Fixed MapReduce job lists for `weft gen mapreduce --spec SPEC.json`
// (docs/workload-format.md "MapReduce job specs"): where the seeded
// generator (mapreduce_workload.h) draws jobs, a spec names them, as a paper's
// experiment does (RAS Tables 1-2: nine jobs of three applications, each with
// its map and reduce profiles, map and reduce counts, a completion-time goal
// and an arrival time). A spec has job *classes* (an application: its map
// profile, its reducers' count, edge and profile or profiled phases) and job
// *instances* (a name, a class, an arrival, a goal, the map count and the task
// lengths). Everything comes out as given; the cluster is the generator's
// (its machine flags).
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "trace/mapreduce_workload.h"

namespace weft {

// MapReduceJobsJson: the workload of the spec `spec_text` on the cluster of
// `cluster` (its machine fields; its job fields are not used), as FORMATS.md
// section 1 JSON. An error names the spec's first bad field
// ("jobs[2].class: no class \"sortt\""), for the command line's exit 2.
absl::StatusOr<nlohmann::ordered_json> MapReduceJobsJson(std::string_view spec_text, const MapReduceSpec& cluster);

}  // namespace weft
