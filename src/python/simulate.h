// File: python/simulate.h
//
// The module's simulated runs: one run with its records kept in memory
// (weft.simulate), and many runs at once on threads (weft.compare), each
// through sim::Simulate, the function `weft sim` and `weft compare` call, so
// the numbers are the command line's. Runs happen with the GIL released:
// nothing here touches Python objects.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "metrics/timeline_writer.h"
#include "python/run_records.h"
#include "python/run_source.h"
#include "sim/simulation.h"

namespace weft::python {

// RunSpec: the command line's run flags (cli/sim_flags.h), with its defaults.
struct RunSpec {
  std::string policy = "fifo";
  std::vector<std::string> params;  // k=v
  uint64_t seed = 1;
  std::string model = "fixed";
  double latency_s = 0;
  uint32_t max_attempts = 4;
  double task_failures = 0;
  bool check = true;
  double timeline_step_s = 1;
  // The machine profile (--profile FILE): a file's path, or the file's text;
  // neither: none (every cost 0).
  std::string profile_path;
  std::string profile_json;
};

// Request builds what sim::Simulate takes; throws ValueError on bad values.
sim::SimulationRequest Request(const RunSpec& spec);

// RecordedRun: a run's result and its records.
struct RecordedRun {
  sim::SimulationResult result;
  std::unique_ptr<RunRecords> records;
  std::vector<Timeline::Bin> timeline;
};

// SimulateRecorded runs one run keeping its records. Throws on bad input
// (nothing has run then); a run that failed (stalled, or failed the check)
// comes back with result.status not ok.
RecordedRun SimulateRecorded(const RunInput& input, const RunSpec& spec);

// SimulateMany runs every spec on `threads` threads; results in spec order.
// Throws the first bad input's error, in spec order.
std::vector<sim::SimulationResult> SimulateMany(const RunInput& input, const std::vector<RunSpec>& specs,
                                                unsigned threads);

}  // namespace weft::python
