// File: cli/sim_flags.h
//
// The flags `weft sim` and `weft compare` share (workload, seed, execution
// model, latency, failures), registered once and turned into SimOptions.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "sim/engine.h"

namespace weft::cli {

struct SimFlags {
  std::string workload;  // empty: the bundled default
  uint64_t seed = 1;
  std::string model = "fixed";
  double latency_s = 0;
  uint32_t max_attempts = 4;
  double task_failures = 0;
  std::vector<std::string> failures;  // MACHINE@T[:RECOVER_T]
  bool no_check = false;
  bool no_progress = false;

  void Register(CLI::App& cmd);
  // Load reads the workload (or the default); errors are InvalidArgument.
  absl::StatusOr<Workload> Load() const;
  // Options builds SimOptions; `workload` resolves machine names in --fail.
  absl::StatusOr<sim::SimOptions> Options(const Workload& workload) const;
};

// DefaultWorkloadPath: $WEFT_DEFAULT_WORKLOAD, else the bundled
// examples/default.json of the source tree weft was built from.
std::string DefaultWorkloadPath();

}  // namespace weft::cli
