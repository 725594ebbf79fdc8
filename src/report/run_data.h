// File: report/run_data.h
//
// RunData: one result directory (FORMATS.md section 2, simulated or exported
// from a real run) read back for `weft report`: summary.json whole, jobs.csv
// and tasks.csv as compact rows (48 bytes an attempt, so a 1M-task run
// takes ~50 MB), and timeline.csv when the run wrote one. Columns are found by
// their header names, so files with extra columns read the same.
// LoadRun is the only function that touches the file system. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace weft::report {

inline constexpr uint32_t kNoJob = UINT32_MAX;

struct AttemptRow {
  uint32_t job = kNoJob;  // index into RunData::jobs; kNoJob for a job that never ended
  uint32_t machine = 0;   // index into RunData::machines
  uint32_t attempt = 0;
  double ready = 0, start = 0, end = 0;  // seconds
  float cpu = 0;
  uint8_t outcome = 0;   // 0 ok, 1 failed, 2 killed
  uint8_t locality = 0;  // 0 none, 1 node, 2 rack, 3 remote
};

struct JobRow {
  std::string name;
  uint32_t user = 0;  // index into RunData::users
  double arrival = 0, start = 0, end = 0, jct = 0;
  double newlb = 0, newlb_ratio = 0;  // 0 when jobs.csv has no such column
  bool ok = true;
  uint32_t tasks = 0;  // attempts that ended ok
};

struct TimelineRow {
  double time = 0, running = 0, waiting = 0;
  double alloc[4] = {}, used[4] = {};  // fractions of capacity: cpu, mem, disk, net
};

struct RunData {
  std::string dir;
  nlohmann::json summary;
  std::vector<std::string> users, machines;
  std::vector<JobRow> jobs;
  std::vector<AttemptRow> attempts;  // in tasks.csv order (end time)
  std::vector<TimelineRow> timeline;  // empty when the run has no timeline.csv
  bool has_timeline = false;
};

// LoadRun reads `dir`. Errors are InvalidArgument and name the file, and the
// line and column where a value is bad.
absl::StatusOr<RunData> LoadRun(const std::string& dir);

}  // namespace weft::report
