#include "runtime/scheduler/live_dashboard.h"

#include "core/status.h"
#include "fmt/format.h"
#include "report/report_page.h"
#include "report/run_data.h"
#include "runtime/client/export_results.h"
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
                     "<body><h1>weft live</h1><p id=\"notice\">{}</p></body></html>\n",
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
  return page;
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
  std::string page = report::ReportPage("weft live", {{"live", &*run}}, report::SeriesOptions{});
  // Reload by itself (Page fills the slot): the simplest refresh that keeps
  // the report's page as is.
  if (const size_t head = page.find("<head>"); head != std::string::npos) page.insert(head + 6, kRefreshSlot);
  return page;
}

}  // namespace weft::runtime
