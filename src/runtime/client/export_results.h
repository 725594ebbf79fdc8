// File: runtime/client/export_results.h
//
// WriteExportedResults turns a real run's export (SchedulerClient::ExportAll)
// into the simulator's result files, tasks.csv, jobs.csv and summary.json
// (FORMATS.md §2), with the same writer and metrics the simulator uses, so
// real and simulated runs of one workload compare with the same tools.
// summary.json says "model": "real"; times are seconds since the scheduler
// first started. Several scheduler replicas' exports are merged into one
// run: their jobs in global id order, their clocks aligned on the earliest
// replica's. Thread-safe: shares nothing.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

absl::Status WriteExportedResults(const std::vector<std::vector<v1::ExportChunk>>& exports, const std::string& dir);

}  // namespace weft::runtime
