// File: report/report_page.h
//
// ReportPage assembles the self-contained HTML report of one or more runs:
// the template and script of report_assets.h, Chart.js inlined, and the
// runs' summaries and series (run_series.h) embedded as one JSON document.
// Pure: no I/O (the caller reads the runs and writes the file).
#pragma once

#include <string>
#include <vector>

#include "report/run_data.h"
#include "report/run_series.h"

namespace weft::report {

struct NamedRun {
  std::string name;  // as shown in legends and tables
  const RunData* run = nullptr;
  std::string config;  // runs that differ only by seed share it (run_labels.h); empty: the name
};

// ReportPage's choices beyond the runs.
struct PageOptions {
  std::string title = "weft report";
  std::string baseline;  // a run's name or policy that JCTs are normalised to; empty: fifo's run, else the first
  // What the page says when no run has slowdowns (no workload was given);
  // empty: nothing (the live page, which has no workload file to name).
  std::string no_slowdown_note = "No slowdown CDF: run weft report with --workload W to compute critical paths.";
};

// ReportPage returns the whole HTML page.
std::string ReportPage(const PageOptions& page, const std::vector<NamedRun>& runs, const SeriesOptions& options);
// The scheduler's live page: the default choices but the title, and no
// advice to give a workload file.
std::string ReportPage(const std::string& title, const std::vector<NamedRun>& runs, const SeriesOptions& options);

// RunNames gives each directory a short, distinct name: its last path
// component, or more of its path where two would clash.
std::vector<std::string> RunNames(const std::vector<std::string>& dirs);

}  // namespace weft::report
