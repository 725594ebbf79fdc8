// File: sim/simulation.h
//
// Simulate: one complete simulated run, as `weft sim` and `weft compare` do
// it: build the policy from its name and parameters, run the engine with the
// results writer, metrics, schedule checker and optional event log attached,
// and gather the summary (FORMATS.md section 2).
// Thread-safe in the sense that separate calls share nothing.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "metrics/run_metrics.h"
#include "model/job_source.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"
#include "sim/engine.h"

namespace weft::sim {

struct SimulationRequest {
  std::string policy;
  std::vector<std::string> params;  // k=v
  SimOptions options;
  std::string out_dir;      // empty: no result files
  TimeUs timeline_step_us = kUsPerSecond;  // the step of out_dir/timeline.csv
  bool compress = false;    // the CSV files as NAME.csv.zst (metrics/result_file.h)
  std::string events_path;  // empty: no event log
  bool check = true;        // run the schedule checker
  bool progress = false;    // draw a progress bar on stderr
  // Observers attached besides the writers (the Python module's in-memory
  // records); they must outlive the call.
  std::vector<RunObserver*> observers;
};

struct SimulationResult {
  std::string policy;
  RunSummary summary;
  RunStats stats;
  double wall_seconds = 0;
  bool overbooking = false;
  bool checked = false;
  uint64_t violation_count = 0;
  std::vector<std::string> violations;  // the first few
  // Non-ok when the run could not complete (the policy stalled or left
  // tasks unscheduled) or the checker found the schedule invalid.
  absl::Status status;
  nlohmann::ordered_json summary_json;
};

// Simulate returns InvalidArgument for bad requests (unknown policy or
// parameter, unwritable output): nothing has run then. Otherwise it returns
// the result, whose `status` tells whether the run and its check succeeded;
// result files are written either way, so a failed run can be inspected.
//
// The jobs come from `source` (model/job_source.h) as they arrive: the
// engine, the observers and the summary read them from source.workload().
// A source that fails while the run goes (a trace's malformed row) makes
// Simulate return its status (InvalidArgument) and write no result files.
absl::StatusOr<SimulationResult> Simulate(JobSource& source, const SimulationRequest& request);
// Simulate a whole workload: Simulate(WorkloadSource(workload), request).
absl::StatusOr<SimulationResult> Simulate(const Workload& workload, const SimulationRequest& request);

}  // namespace weft::sim
