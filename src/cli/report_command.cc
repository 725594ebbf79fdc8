// weft report: reads one or more result directories and writes one
// self-contained HTML page of charts comparing them (docs/report.md).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/sim_flags.h"
#include "fmt/format.h"
#include "report/report_page.h"
#include "trace/workload_reader.h"

namespace weft::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> dirs;
  std::string out = "report.html";
  std::string title = "weft report";
  std::string workload;
  std::string gantt_window;  // START:END seconds
  size_t max_points = 1000;
  size_t gantt_machines = 24;
};

absl::StatusOr<std::pair<double, double>> ParseWindow(const std::string& text) {
  const auto colon = text.find(':');
  try {
    size_t a = 0, b = 0;
    if (colon == std::string::npos) throw std::invalid_argument(text);
    const double lo = std::stod(text.substr(0, colon), &a), hi = std::stod(text.substr(colon + 1), &b);
    if (a != colon || b != text.size() - colon - 1 || !(lo < hi)) throw std::invalid_argument(text);
    return std::make_pair(lo, hi);
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(fmt::format("--gantt-window \"{}\": write START:END in seconds, START < END", text));
  }
}

int RunReport(const ReportFlags& f) {
  const auto start = std::chrono::steady_clock::now();
  report::SeriesOptions options;
  options.max_points = f.max_points;
  options.gantt_machines = f.gantt_machines;
  if (!f.gantt_window.empty()) {
    auto window = ParseWindow(f.gantt_window);
    if (!window.ok()) return ReportError(window.status());
    options.gantt_window = *window;
  }
  std::optional<Workload> workload;
  if (!f.workload.empty()) {
    workload = ReadWorkloadOrReport(f.workload);
    if (!workload) return kExitBadInput;
    options.workload = &*workload;
  }
  std::vector<report::RunData> runs;
  for (const std::string& dir : f.dirs) {
    auto run = report::LoadRun(dir);
    if (!run.ok()) return ReportError(run.status());
    runs.push_back(std::move(*run));
  }
  const std::vector<std::string> names = report::RunNames(f.dirs);
  std::vector<report::NamedRun> named;
  for (size_t i = 0; i < runs.size(); ++i) named.push_back({names[i], &runs[i]});
  const std::string page = report::ReportPage(f.title, named, options);

  // Written beside the target and renamed: never a half-written report.
  const std::string tmp = f.out + ".tmp";
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  if (file == nullptr) {
    std::cerr << fmt::format("error: -o {}: cannot write there\n", f.out);
    return kExitBadInput;
  }
  const bool ok = std::fwrite(page.data(), 1, page.size(), file) == page.size();
  if (std::fclose(file) != 0 || !ok || std::rename(tmp.c_str(), f.out.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::cerr << fmt::format("error: -o {}: writing failed (disk full?)\n", f.out);
    return kExitFailure;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("report of {} run(s), {:.1f} kB, written in {:.2f} s: {}\n", runs.size(),
                           static_cast<double>(page.size()) / 1e3, seconds, f.out);
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, CommandRun& run) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand("report", "Write a self-contained HTML report of one or more result directories");
  cmd->add_option("dirs", flags->dirs, "Result directories (weft sim --out, weft compare --out DIR/POLICY, weft status --out)")
      ->required();
  cmd->add_option("-o,--out", flags->out, "The HTML file to write")->capture_default_str();
  cmd->add_option("--title", flags->title, "The page's title")->capture_default_str();
  cmd->add_option("--workload,-w", flags->workload, "The runs' workload: adds slowdown CDFs and DAG sizes from it");
  cmd->add_option("--gantt-window", flags->gantt_window, "START:END seconds of the Gantt charts (default: from the start)");
  cmd->add_option("--max-points", flags->max_points, "Points per CDF, scatter and timeline before sampling")
      ->check(CLI::Range(10, 100000))
      ->capture_default_str();
  cmd->add_option("--gantt-machines", flags->gantt_machines, "Machines shown in each Gantt chart")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->callback([&run, flags] { run = [flags] { return RunReport(*flags); }; });
}

}  // namespace weft::cli
