// File: cli/sweep_plan.h
//
// The plan of `weft sweep`, kept apart from running it so it can be tested
// alone: which configurations (workload x policy x parameter values) to run,
// which seeds, and the statistics of the summary table (mean and the 95%
// confidence half-width of Student's t over the seeds). Thread-safe: plain
// functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace weft::cli {

// One configuration: a run but for its seed.
struct SweepConfig {
  size_t workload = 0;                // index into the workload paths
  std::string workload_name;          // the file's stem, made unique with "-2", "-3", ...
  std::string policy;
  std::vector<std::string> params;    // k=v for the policy
  std::string label;                  // "k=v,k2=v2" (empty: none), for tables
  std::string dir;                    // runs/ subdirectory: workload/policy[/label]
};

// ParseSeeds reads "A..B" (inclusive) or "a,b,c"; empty means {fallback}.
// InvalidArgument names --seeds.
absl::StatusOr<std::vector<uint64_t>> ParseSeeds(const std::string& text, uint64_t fallback);

// PlanSweep lists the configurations, workloads outermost, then policies in
// the order given ("all": registration order), then parameter values (first
// --param outermost, values in the order given). `params` are
// "[POLICY:]k=v1,v2,...": a scoped one applies to its policy, an unscoped one
// to every listed policy that has the key (its own or a common one), and
// must apply to at least one. InvalidArgument for an unknown policy, a
// malformed or unused --param, or a value the policy refuses.
absl::StatusOr<std::vector<SweepConfig>> PlanSweep(const std::vector<std::string>& workload_paths,
                                                   const std::string& policies,
                                                   const std::vector<std::string>& params);

struct MeanCi {
  double mean = 0;
  double half_width = 0;  // 95% confidence half-width; 0 when n < 2
  size_t n = 0;
};

// MeanAndCi95: mean and t(0.975, n-1) x s / sqrt(n), s the sample standard
// deviation.
MeanCi MeanAndCi95(const std::vector<double>& values);

// CiText: the half-width for the CSV, empty when it is undefined (n < 2).
std::string CiText(const MeanCi& ci);

}  // namespace weft::cli
