// weft report: reads one or more result directories, compare directories
// (weft compare --out) or sweep directories (weft sweep --out), and writes
// one self-contained HTML page of charts comparing them (docs/report.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/sim_flags.h"
#include "fmt/format.h"
#include "report/report_page.h"
#include "report/run_labels.h"
#include "trace/workload_reader.h"

namespace weft::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> dirs;
  std::string out = "report.html";
  std::string title = "weft report";
  std::string baseline;
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

// A run to read: its directory and, for a run found in a sweep directory,
// its workload's name there (DIR/runs/<workload>/...).
struct RunDir {
  std::string dir;
  std::optional<std::string> sweep_workload;
};

// SweepRuns lists the runs of a sweep directory: every directory under
// DIR/runs that holds a summary.json, in path order (the sweep's own order
// of policies, parameter values and seeds). Empty when `dir` is no sweep.
std::vector<RunDir> SweepRuns(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path runs = fs::path(dir) / "runs";
  if (fs::exists(fs::path(dir) / "summary.json", ec) || !fs::is_directory(runs, ec)) return {};
  std::vector<RunDir> found;
  for (auto it = fs::recursive_directory_iterator(runs, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_directory(ec) || !fs::exists(it->path() / "summary.json", ec)) continue;
    const fs::path relative = it->path().lexically_relative(runs);
    found.push_back({it->path().string(), relative.begin()->string()});
  }
  std::sort(found.begin(), found.end(), [](const RunDir& a, const RunDir& b) { return a.dir < b.dir; });
  return found;
}

// CompareRuns lists the runs of a `weft compare --out DIR` directory: its
// subdirectories that hold a summary.json, in name order. Empty when `dir`
// is a result directory itself or holds none.
std::vector<std::string> CompareRuns(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(fs::path(dir) / "summary.json", ec) || !fs::is_directory(dir, ec)) return {};
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && fs::exists(e.path() / "summary.json", ec)) found.push_back(e.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
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
  std::vector<RunDir> dirs;
  std::vector<std::string> plain;  // the result directories given or found in a compare directory
  bool from_sweep = false;
  for (const std::string& dir : f.dirs) {
    std::vector<RunDir> sweep = SweepRuns(dir);
    if (sweep.empty()) {
      std::vector<std::string> compared = CompareRuns(dir);
      if (compared.empty()) compared.push_back(dir);
      for (const std::string& d : compared) {
        dirs.push_back({d, std::nullopt});
        plain.push_back(d);
      }
      continue;
    }
    from_sweep = true;
    for (RunDir& r : sweep) dirs.push_back(std::move(r));
  }
  std::vector<report::RunData> runs;
  for (const RunDir& d : dirs) {
    auto run = report::LoadRun(d.dir);
    if (!run.ok()) return ReportError(run.status());
    runs.push_back(std::move(*run));
  }
  std::vector<report::NamedRun> named;
  if (from_sweep) {
    // Named by their parameter values: a sweep's paths are long and alike.
    std::vector<const nlohmann::json*> summaries;
    std::vector<std::string> workloads;
    for (size_t i = 0; i < runs.size(); ++i) {
      summaries.push_back(&runs[i].summary);
      workloads.push_back(dirs[i].sweep_workload.value_or(""));
    }
    const std::vector<report::RunLabel> labels = report::ParamLabels(summaries, workloads);
    for (size_t i = 0; i < runs.size(); ++i) named.push_back({labels[i].name, &runs[i], labels[i].config});
  } else {
    const std::vector<std::string> names = report::RunNames(plain);
    for (size_t i = 0; i < runs.size(); ++i) named.push_back({names[i], &runs[i], ""});
  }
  if (!f.baseline.empty() && std::none_of(named.begin(), named.end(), [&](const report::NamedRun& r) {
        return r.name == f.baseline || r.config == f.baseline || r.run->summary.value("policy", "") == f.baseline;
      })) {
    std::cerr << fmt::format("error: --baseline {}: no run has that name or policy\n", f.baseline);
    return kExitBadInput;
  }
  report::PageOptions page_options;
  page_options.title = f.title;
  page_options.baseline = f.baseline;
  const std::string page = report::ReportPage(page_options, named, options);

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
  cmd->add_option("dirs", flags->dirs,
                  "Result directories (weft sim --out, weft status --out), or directories of them (weft compare "
                  "--out), or sweep directories (weft sweep --out)")
      ->required();
  cmd->add_option("-o,--out", flags->out, "The HTML file to write")->capture_default_str();
  cmd->add_option("--title", flags->title, "The page's title")->capture_default_str();
  cmd->add_option("--baseline", flags->baseline,
                  "The run (its name, configuration or policy) JCTs are normalised to (default: fifo's, else the first)");
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
