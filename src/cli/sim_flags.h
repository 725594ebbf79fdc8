// File: cli/sim_flags.h
//
// The flags `weft sim` and `weft compare` share (workload, seed, execution
// model, latency, failures), registered once and turned into SimOptions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "cli/trace_flags.h"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "sim/engine.h"
#include "sim/simulation.h"
#include "trace/trace_stream.h"

namespace weft::cli {

struct SimFlags {
  std::string workload;    // -w; empty: the bundled default
  std::string positional;  // the workload given as an argument (weft sim W.json), with RegisterPositional
  std::string trace;     // FORMAT:PATH[,PATH...]: replay a trace natively instead
  TraceFlags trace_flags;
  uint64_t seed = 1;
  std::string model = "fixed";
  double latency_s = 0;
  uint32_t max_attempts = 4;
  double task_failures = 0;
  std::vector<std::string> failures;  // MACHINE@T[:RECOVER_T]
  std::vector<std::string> scheduler_failures;  // REPLICA@T
  std::string profile;  // --profile FILE: the machine profile (docs/model.md)
  bool no_check = false;
  bool no_progress = false;
  double timeline_step_s = 1;  // the step of timeline.csv (docs/report.md)
  bool compress = false;       // --compress: NAME.csv.zst in --out

  void Register(CLI::App& cmd);
  // RegisterPositional adds the workload as an argument; giving it with -w or
  // --trace is an error (Prepare).
  void RegisterPositional(CLI::App& cmd);
  // Load reads the workload (or the default); with --trace, only the trace's
  // cluster, its jobs being read as the run goes (PreparedRun::Source).
  // Errors are InvalidArgument.
  absl::StatusOr<Workload> Load() const;
  // Options builds SimOptions; `workload` resolves machine names in --fail.
  absl::StatusOr<sim::SimOptions> Options(const Workload& workload) const;
};

// PreparedRun: a loaded workload and the options to simulate it with.
struct PreparedRun {
  Workload workload;  // --trace: the trace's cluster, no jobs
  sim::SimOptions options;
  std::optional<TraceSpec> trace;
  TraceOptions trace_options;
  std::unique_ptr<TraceJobSource> opened;  // --trace: the source Load opened, for the first run

  // Source: the jobs of one run (model/job_source.h): the workload's, or
  // the trace read as the run goes (opened again for every run but the
  // first). Call it once per run, on one thread.
  absl::StatusOr<std::unique_ptr<JobSource>> Source();
};
// PrintSourceReport: a trace's data-quality lines to stderr once its run
// has read it whole (nothing for a workload, or a run that never started).
void PrintSourceReport(const JobSource& source);

// Prepare loads the workload and builds the options; on bad input it prints
// the one-line error and returns nullopt (the caller exits with kExitBadInput).
std::optional<PreparedRun> Prepare(const SimFlags& flags);

// ReportError prints `status` as the one stderr line and returns the exit
// code it calls for: 2 for InvalidArgument (bad input), else 1.
int ReportError(const absl::Status& status);

// Request builds the simulation request the flags describe for `policy`.
sim::SimulationRequest Request(const SimFlags& flags, const sim::SimOptions& options, std::string policy,
                               std::vector<std::string> params);

// DefaultWorkloadPath: $WEFT_DEFAULT_WORKLOAD, else the bundled
// examples/default.json of the source tree weft was built from.
std::string DefaultWorkloadPath();

}  // namespace weft::cli
