#include "report/report_page.h"

#include <filesystem>

#include "report/report_assets.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "unknown"
#endif

namespace weft::report {
namespace {

using nlohmann::json;

std::string EscapeHtml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Summary: the `weft compare` columns, from summary.json.
json Summary(const json& s) {
  auto number = [&](const json& j, const char* key) { return j.is_object() && j.contains(key) ? j[key] : json(nullptr); };
  return {{"policy", s.value("policy", std::string("?"))},
          {"jobs", number(s, "jobs")},
          {"tasks", number(s, "tasks")},
          {"avg_jct", number(s, "avg_jct")},
          {"median_jct", number(s, "median_jct")},
          {"p95_jct", number(s, "p95_jct")},
          {"makespan", number(s, "makespan")},
          {"cpu_held", number(s.value("utilization", json::object()), "cpu")},
          {"cpu_used", number(s.value("used", json::object()), "cpu")},
          {"mem_held", number(s.value("utilization", json::object()), "mem")},
          {"knowledge", s.value("knowledge", std::string("?"))},
          {"overbooked", s.value("overbooked_resources", json())},
          {"delay_p95", number(s.value("scheduling_delay", json::object()), "p95")},
          {"jobs_failed", number(s, "jobs_failed")},
          {"median_job_ratio", number(s.value("bounds", json::object()), "median_job_ratio")},
          {"wall_seconds", number(s, "wall_seconds")}};
}

void Replace(std::string& text, std::string_view placeholder, std::string_view with) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + with.size())) {
    text.replace(at, placeholder.size(), with);
  }
}

}  // namespace

std::vector<std::string> RunNames(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  for (const std::string& d : dirs) {
    std::filesystem::path p = std::filesystem::path(d).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();
    names.push_back(p.filename().string());
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < names.size(); ++j) {
      if (i != j && names[i] == names[j]) names[i] = dirs[i];
    }
  }
  return names;
}

std::string ReportPage(const PageOptions& page_options, const std::vector<NamedRun>& runs, const SeriesOptions& options) {
  json doc = {{"generator", "weft " WEFT_VERSION},
              {"baseline", page_options.baseline},
              {"no_slowdown_note", page_options.no_slowdown_note},
              {"runs", json::array()}};
  for (const NamedRun& r : runs) {
    doc["runs"].push_back({{"name", r.name},
                           {"config", r.config.empty() ? r.name : r.config},
                           {"dir", r.run->dir},
                           {"summary", Summary(r.run->summary)},
                           {"series", RunSeries(*r.run, options)}});
  }
  std::string data = doc.dump();
  // Inside <script>, "</" could close the element early; "<\/" is the same JSON.
  Replace(data, "</", "<\\/");
  std::string page(kReportHtml);
  // The scripts go in before any user text (title, data), so a run or job
  // name can never be taken for a placeholder of the scripts.
  Replace(page, "/*WEFT:CHARTJS*/", kChartJs);
  Replace(page, "/*WEFT:APP*/", kReportJs);
  Replace(page, "<!--WEFT:TITLE-->", EscapeHtml(page_options.title));
  Replace(page, "/*WEFT:DATA*/", data);
  return page;
}

std::string ReportPage(const std::string& title, const std::vector<NamedRun>& runs, const SeriesOptions& options) {
  PageOptions page;
  page.title = title;
  page.no_slowdown_note = "";
  return ReportPage(page, runs, options);
}

}  // namespace weft::report
