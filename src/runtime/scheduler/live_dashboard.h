// File: runtime/scheduler/live_dashboard.h
//
// LiveDashboard: the page `weftd scheduler --http` serves at /, and the JSON
// it polls: first the operator's tables (operator_page.h: running and queued
// jobs, nodes, shares now, recent failures), filled every 2 s from /api/jobs
// and /api/nodes (operator_view.h, read from the scheduler's status and
// export; the shares over time are sampled at each of those reads,
// share_history.h); below them the report of `weft report` (docs/report.md: the same
// charts, Chart.js inlined) for the jobs so far, rebuilt from the scheduler's
// export when the page is loaded (`?refresh=N` reloads it every N seconds).
// The export goes through the same writer as `weft export`
// (runtime/client/export_results.h) into a scratch directory and is read back
// by the report's reader, so the live page and a report of the exported run
// can never disagree. Thread-safe: one build at a time; a page, and what the
// JSON reads of an export, are reused for kMinRebuildSeconds so many viewers
// cost one build.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/scheduler/operator_view.h"

namespace weft::runtime {

class SchedulerCore;

class LiveDashboard {
 public:
  static constexpr double kMinRebuildSeconds = 2;
  static constexpr double kNewJobSeconds = 0.25;

  LiveDashboard(SchedulerCore& core, std::filesystem::path scratch_dir) : core_(core), scratch_(std::move(scratch_dir)) {}

  // Page: the whole HTML page (a short notice page while there is nothing
  // to chart yet, or when the export fails), reloading itself every
  // `refresh_seconds` (0: never).
  std::string Page(int refresh_seconds);

  // JobsJson, NodesJson: the bodies of /api/jobs and /api/nodes
  // (operator_view.h).
  std::string JobsJson();
  std::string NodesJson();

  // MetricsText: what /metrics adds to the scheduler's own series: the ended
  // jobs' queue-wait and completion-time histograms and the per-user gauges.
  std::string MetricsText();

 private:
  std::string Build();
  // Facts: what the JSON and /metrics read of the scheduler's export, at
  // most `max_age_s` old (empty when the export fails).
  std::shared_ptr<const ExportFacts> Facts(double max_age_s);

  // Sample: adds the running tasks per user of `status` at `now_s` to the
  // shares' history (under history_mu_).
  void Sample(const v1::StatusReply& status, const ExportFacts& facts, double now_s);
  // NowSeconds: the scheduler's time now (its clock counts from the
  // journal's epoch, a Unix time, which `facts` carries); 0 before it is known.
  static double NowSeconds(const ExportFacts& facts);

  SchedulerCore& core_;
  std::filesystem::path scratch_;
  std::mutex mu_;
  std::string page_;
  std::chrono::steady_clock::time_point built_at_{};
  std::mutex facts_mu_;
  std::shared_ptr<const ExportFacts> facts_ = std::make_shared<const ExportFacts>();
  std::chrono::steady_clock::time_point facts_at_{};
  std::mutex history_mu_;
  ShareHistory history_;
};

}  // namespace weft::runtime
