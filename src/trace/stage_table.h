// File: trace/stage_table.h
//
// Shared by the readers of the TPC-H stage tables (decima-tpch,
// tpch-cloudlab): a header check that names the expected columns, the
// cluster both use, and the parse of a "children" field (ids separated by
// spaces). Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "trace/row_reader.h"

namespace weft {

// ExpectHeader refuses a first row that is not exactly `columns`.
absl::Status ExpectHeader(const RowReader& rows, const std::vector<std::string_view>& columns,
                          std::string_view table);

// SplitIds splits "1 2 3" into ids.
std::vector<std::string> SplitIds(std::string_view text);

// AnalyticsCluster: 100 machines of 8 cores and 32 GB, for traces that give
// no cluster (a stage-DAG task demands 1 core).
nlohmann::json AnalyticsCluster();

}  // namespace weft
