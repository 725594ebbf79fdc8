// File: runtime/scheduler/live_dashboard.h
//
// LiveDashboard: the page `weftd scheduler --http` serves at /: the report of
// `weft report` (docs/report.md: the same charts, Chart.js inlined) for the
// jobs so far, rebuilt from the scheduler's export and reloading itself every
// few seconds. The export goes through the same writer as `weft export`
// (runtime/client/export_results.h) into a scratch directory and is read back
// by the report's reader, so the live page and a report of the exported run
// can never disagree. Thread-safe: one build at a time; a page is reused for
// kMinRebuildSeconds so many viewers cost one build.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>

namespace weft::runtime {

class SchedulerCore;

class LiveDashboard {
 public:
  static constexpr double kMinRebuildSeconds = 2;

  LiveDashboard(SchedulerCore& core, std::filesystem::path scratch_dir) : core_(core), scratch_(std::move(scratch_dir)) {}

  // Page: the whole HTML page (a short notice page while there is nothing
  // to chart yet, or when the export fails), reloading itself every
  // `refresh_seconds` (0: never).
  std::string Page(int refresh_seconds);

 private:
  std::string Build();

  SchedulerCore& core_;
  std::filesystem::path scratch_;
  std::mutex mu_;
  std::string page_;
  std::chrono::steady_clock::time_point built_at_{};
};

}  // namespace weft::runtime
