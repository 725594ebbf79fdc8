// File: report/run_series.h
//
// RunSeries reduces one RunData to the compact JSON the report page draws
// (docs/report.md lists every chart and where its data comes from): CDFs and
// per-job points sampled to at most `max_points`, the timeline averaged down
// to at most `max_points` rows, a Gantt window of at most `gantt_machines`
// machines and `gantt_bars` bars. Whatever was sampled is said in the
// run's "notes", which the page prints. Numbers are rounded to four
// significant digits, which is what a chart can show. Pure: no I/O.
#pragma once

#include <optional>
#include <utility>

#include "model/workload.h"
#include "nlohmann/json.hpp"
#include "report/run_data.h"

namespace weft::report {

struct SeriesOptions {
  size_t max_points = 1000;
  size_t gantt_machines = 24;
  size_t gantt_bars = 1500;
  std::optional<std::pair<double, double>> gantt_window;  // seconds; default: from the run's start
  const Workload* workload = nullptr;  // when given: slowdowns (JCT / critical path) and DAG shapes
};

nlohmann::json RunSeries(const RunData& run, const SeriesOptions& options);

// Round4 rounds to four significant digits (0 stays 0).
double Round4(double x);

}  // namespace weft::report
