// File: report/run_labels.h
//
// Labels for runs read from a sweep directory (`weft sweep --out DIR`):
// each run is named by what sets it apart, read from its summary.json, not
// by its path: its policy, the parameters whose values differ between the
// runs, the workload when there are several, and the seed when there are
// several ("sparrow probe_ratio=2 seed 3"). Runs that differ only by seed
// share a configuration, which the report averages with a 95% confidence
// interval. Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace weft::report {

struct RunLabel {
  std::string name;    // the whole label, seed included when seeds differ
  std::string config;  // the label without the seed
};

// ParamLabels labels runs by `summaries` (each run's summary.json) and
// `workloads` (the name of each run's workload, same size).
std::vector<RunLabel> ParamLabels(const std::vector<const nlohmann::json*>& summaries,
                                  const std::vector<std::string>& workloads);

}  // namespace weft::report
