// File: trace/trace_stats.h
//
// DescribeWorkload: the distributions part of the data-quality report
// (`weft trace inspect`): time span and arrival rate, task durations,
// demands, and the shape of the DAGs (depth, width), computed from the
// workload a trace became. Thread-safe: reads only.
#pragma once

#include <string>
#include <vector>

#include "model/workload.h"

namespace weft {

// DescribeWorkload returns one line per figure, "name: values".
std::vector<std::string> DescribeWorkload(const Workload& workload);

}  // namespace weft
