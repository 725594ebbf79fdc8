#include "runtime/scheduler/live_dashboard.h"

#include "core/status.h"
#include "fmt/format.h"
#include "report/report_page.h"
#include "report/run_data.h"
#include "runtime/client/export_results.h"
#include "runtime/scheduler/operator_page.h"
#include "runtime/scheduler/scheduler_core.h"

namespace weft::runtime {
namespace {

// The marker where a page takes its refresh tag (inside <head>).
constexpr std::string_view kRefreshSlot = "<!--WEFT:REFRESH-->";

// Notice: a small page that says `text` and reloads itself.
std::string Notice(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '<') escaped += "&lt;";
    else if (c == '&') escaped += "&amp;";
    else escaped += c;
  }
  return fmt::format("<!doctype html><html><head><meta charset=\"utf-8\">{}<title>weft live</title></head>"
                     "<body><p id=\"notice\">{}</p></body></html>\n",
                     kRefreshSlot, escaped);
}

}  // namespace

std::string LiveDashboard::Page(int refresh_seconds) {
  std::string page;
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (page_.empty() || std::chrono::duration<double>(now - built_at_).count() >= kMinRebuildSeconds) {
      page_ = Build();
      built_at_ = now;
    }
    page = page_;
  }
  const std::string tag =
      refresh_seconds > 0 ? fmt::format("<meta http-equiv=\"refresh\" content=\"{}\">", refresh_seconds) : "";
  if (const size_t slot = page.find(kRefreshSlot); slot != std::string::npos) page.replace(slot, kRefreshSlot.size(), tag);
  // The operator's tables lead; the report of the finished jobs follows.
  if (const size_t body = page.find("<body"); body != std::string::npos) {
    if (const size_t open_end = page.find('>', body); open_end != std::string::npos) {
      page.insert(open_end + 1, kOperatorSection);
    }
  }
  return page;
}

std::shared_ptr<const ExportFacts> LiveDashboard::Facts(double max_age_s) {
  std::lock_guard lock(facts_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (facts_at_ == std::chrono::steady_clock::time_point{} ||
      std::chrono::duration<double>(now - facts_at_).count() >= max_age_s) {
    auto chunk = core_.Export();
    // On a failed export the last facts stand: users and stages only go
    // missing, the jobs' status still shows.
    if (chunk.ok()) facts_ = std::make_shared<const ExportFacts>(ExportFactsOf(*chunk));
    facts_at_ = now;
  }
  return facts_;
}

std::string LiveDashboard::JobsJson() {
  v1::StatusRequest request;
  request.set_all(true);
  const v1::StatusReply status = core_.Status(request);
  // Many viewers polling cost one export every kMinRebuildSeconds; sooner
  // when a job is not known yet, so a new job shows its user and stage.
  std::shared_ptr<const ExportFacts> facts = Facts(kMinRebuildSeconds);
  for (const v1::JobStatus& j : status.jobs()) {
    if (!facts->jobs.contains(j.id())) {
      facts = Facts(kNewJobSeconds);
      break;
    }
  }
  const double now_s = NowSeconds(*facts);
  std::lock_guard lock(history_mu_);
  if (now_s > 0) history_.Add(now_s, RunningByUser(status, *facts));
  return OperatorJobsJson(status, *facts, now_s, history_);
}

double LiveDashboard::NowSeconds(const ExportFacts& facts) {
  // The scheduler's clock counts from its journal's epoch (Unix time), so
  // its `now` is the wall clock minus that epoch.
  const int64_t unix_us = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
  return facts.epoch_unix_us > 0 ? static_cast<double>(unix_us - facts.epoch_unix_us) / 1e6 : 0;
}

void LiveDashboard::Sample(const v1::StatusReply& status, const ExportFacts& facts, double now_s) {
  if (now_s <= 0) return;
  std::lock_guard lock(history_mu_);
  history_.Add(now_s, RunningByUser(status, facts));
}

std::string LiveDashboard::NodesJson() {
  v1::StatusRequest request;
  request.set_no_jobs(true);
  request.set_nodes(true);
  return OperatorNodesJson(core_.Status(request));
}

std::string LiveDashboard::MetricsText() {
  v1::StatusRequest request;
  request.set_all(true);
  const v1::StatusReply status = core_.Status(request);
  // A scrape reads the state of now, as the scheduler's own gauges do.
  const std::shared_ptr<const ExportFacts> facts = Facts(0);
  Sample(status, *facts, NowSeconds(*facts));
  return JobTimeHistograms(*facts) + UserGauges(status, *facts);
}

std::string LiveDashboard::Build() {
  auto chunk = core_.Export();
  if (!chunk.ok()) return Notice(fmt::format("cannot export the run: {}", StatusMessage(chunk.status())));
  if (chunk->jobs_size() == 0) return Notice("no job has ended yet");
  if (absl::Status s = WriteExportedResults({{*chunk}}, scratch_.string()); !s.ok()) {
    return Notice(fmt::format("cannot write the run: {}", StatusMessage(s)));
  }
  auto run = report::LoadRun(scratch_.string());
  if (!run.ok()) return Notice(fmt::format("cannot read the run back: {}", StatusMessage(run.status())));
  std::string page = report::ReportPage("Finished jobs", {{"live", &*run}}, report::SeriesOptions{});
  // Reload by itself (Page fills the slot): the simplest refresh that keeps
  // the report's page as is.
  if (const size_t head = page.find("<head>"); head != std::string::npos) page.insert(head + 6, kRefreshSlot);
  return page;
}

}  // namespace weft::runtime
