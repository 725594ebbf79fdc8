// weft sweep: every combination of workloads x policies x parameter values x
// seeds, simulated on -j threads. Each run writes its own results directory
// (DIR/runs/<workload>/<policy>[/<k=v,...>]/seed-<s>/: tasks.csv, jobs.csv,
// summary.json); DIR/runs.csv has one row per run and DIR/sweep.csv one row
// per configuration (a run without its seed) with the mean and the 95%
// confidence half-width of each metric over the seeds. Runs are independent
// and every output is written in configuration order after all have ended, so
// -j changes nothing but the wall time.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/parallel_runs.h"
#include "cli/sim_flags.h"
#include "cli/sweep_plan.h"
#include "core/status.h"
#include "fmt/format.h"
#include "metrics/results_writer.h"
#include "sim/simulation.h"

namespace weft::cli {
namespace {

struct SweepFlags {
  SimFlags common;
  std::vector<std::string> workloads;  // positional; -w adds one more
  std::string policies = "fifo";
  std::vector<std::string> params;  // [POLICY:]k=v1,v2,...
  std::string seeds;                // "1..5" or "1,2,7"; empty: --seed
  std::string out;
  unsigned jobs = DefaultJobs();
};

// The metrics of the table, read from a run's summary.
struct Metric {
  const char* name;
  double (*get)(const RunSummary&);
};
constexpr Metric kMetrics[] = {
    {"avg_jct", [](const RunSummary& s) { return s.avg_jct; }},
    {"median_jct", [](const RunSummary& s) { return s.median_jct; }},
    {"p95_jct", [](const RunSummary& s) { return s.p95_jct; }},
    {"makespan", [](const RunSummary& s) { return s.makespan; }},
    {"cpu_util", [](const RunSummary& s) { return s.utilization[kCpu]; }},
    {"mem_util", [](const RunSummary& s) { return s.utilization[kMem]; }},
    {"delay_p95", [](const RunSummary& s) { return s.delay_p95; }},
    {"jobs_failed", [](const RunSummary& s) { return static_cast<double>(s.jobs_failed); }},
    {"makespan_ratio", [](const RunSummary& s) { return s.makespan_ratio; }},
};

std::string MetricHeader(bool with_ci) {
  std::string h;
  for (const Metric& m : kMetrics) h += with_ci ? fmt::format(",{0}_mean,{0}_ci95", m.name) : fmt::format(",{}", m.name);
  return h;
}

int RunSweep(const SweepFlags& f) {
  std::vector<std::string> paths = f.workloads;
  if (!f.common.workload.empty()) paths.push_back(f.common.workload);
  if (paths.empty()) paths.push_back(DefaultWorkloadPath());
  // Every input is checked before anything runs or is written.
  std::vector<PreparedRun> prepared;
  for (const std::string& path : paths) {
    SimFlags one = f.common;
    one.workload = path;
    auto p = Prepare(one);
    if (!p) return kExitBadInput;
    prepared.push_back(std::move(*p));
  }
  auto seeds = ParseSeeds(f.seeds, f.common.seed);
  if (!seeds.ok()) return ReportError(seeds.status());
  auto configs = PlanSweep(paths, f.policies, f.params);
  if (!configs.ok()) return ReportError(configs.status());
  std::error_code ec;
  std::filesystem::create_directories(f.out, ec);
  if (ec || !std::filesystem::is_directory(f.out)) {
    std::cerr << fmt::format("error: --out {}: cannot create the directory\n", f.out);
    return kExitBadInput;
  }

  struct Run {
    size_t config;
    uint64_t seed;
    std::optional<absl::StatusOr<sim::SimulationResult>> result;
  };
  std::vector<Run> runs;
  for (size_t c = 0; c < configs->size(); ++c) {
    for (uint64_t seed : *seeds) runs.push_back(Run{c, seed, std::nullopt});
  }
  RunInParallel(f.jobs, runs.size(), [&](size_t i) {
    Run& run = runs[i];
    const SweepConfig& config = (*configs)[run.config];
    sim::SimOptions options = prepared[config.workload].options;
    options.seed = run.seed;
    sim::SimulationRequest request = Request(f.common, options, config.policy, config.params);
    request.progress = false;
    request.out_dir = fmt::format("{}/runs/{}/seed-{}", f.out, config.dir, run.seed);
    run.result = sim::Simulate(prepared[config.workload].workload, request);
  });

  int exit_code = kExitOk;
  std::string per_run = "workload,policy,params,seed,check_ok,wall_seconds" + MetricHeader(false) + "\n";
  std::string table = "workload,policy,params,runs,runs_failed" + MetricHeader(true) + "\n";
  std::cout << fmt::format("{:<20} {:<14} {:<24} {:>4} {:>22} {:>22}\n", "workload", "policy", "params", "runs",
                           "avg_jct (95% ci)", "makespan (95% ci)");
  for (size_t c = 0, i = 0; c < configs->size(); ++c) {
    const SweepConfig& config = (*configs)[c];
    std::vector<RunSummary> summaries;
    int failed = 0;
    for (; i < runs.size() && runs[i].config == c; ++i) {
      absl::StatusOr<sim::SimulationResult>& r = *runs[i].result;
      if (!r.ok()) return ReportError(r.status());
      if (!r->status.ok()) {
        std::cerr << fmt::format("error: {} seed {}: {}\n", config.dir, runs[i].seed, StatusMessage(r->status));
        exit_code = kExitFailure;
        ++failed;
      }
      per_run += fmt::format("{},{},{},{},{},{}", CsvField(config.workload_name), CsvField(config.policy),
                             CsvField(config.label), runs[i].seed, r->status.ok() ? "true" : "false",
                             r->wall_seconds);
      for (const Metric& m : kMetrics) per_run += fmt::format(",{}", m.get(r->summary));
      per_run += "\n";
      summaries.push_back(r->summary);
    }
    table += fmt::format("{},{},{},{},{}", CsvField(config.workload_name), CsvField(config.policy),
                         CsvField(config.label), summaries.size(), failed);
    std::vector<MeanCi> cis;
    for (const Metric& m : kMetrics) {
      std::vector<double> values;
      for (const RunSummary& s : summaries) values.push_back(m.get(s));
      cis.push_back(MeanAndCi95(values));
      table += fmt::format(",{},{}", cis.back().mean, CiText(cis.back()));
    }
    table += "\n";
    std::cout << fmt::format("{:<20} {:<14} {:<24} {:>4} {:>10.3f} ± {:<9.3f} {:>10.3f} ± {:<9.3f}\n",
                             config.workload_name, config.policy, config.label.empty() ? "-" : config.label,
                             summaries.size(), cis[0].mean, cis[0].half_width, cis[3].mean, cis[3].half_width);
  }
  for (const auto& [name, text] : {std::pair<const char*, const std::string&>{"runs.csv", per_run},
                                   std::pair<const char*, const std::string&>{"sweep.csv", table}}) {
    const std::string path = fmt::format("{}/{}", f.out, name);
    std::ofstream out(path + ".tmp");
    out << text;
    out.close();
    if (!out || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
      std::cerr << fmt::format("error: {}: cannot write there\n", path);
      return kExitFailure;
    }
  }
  return exit_code;
}

}  // namespace

void AddSweepCommand(CLI::App& app, CommandRun& run) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Simulate every combination of workloads, policies, parameter values and seeds, in parallel");
  flags->common.Register(*cmd);
  cmd->add_option("workloads", flags->workloads, "Workload files (default: the bundled examples/default.json)");
  cmd->add_option("--policies", flags->policies, "Comma-separated policy names, or \"all\"")->capture_default_str();
  cmd->add_option("--param", flags->params,
                  "[POLICY:]k=v1,v2,...: values to sweep; unscoped keys apply to the policies that have them; "
                  "repeatable");
  cmd->add_option("--seeds", flags->seeds, "Seeds: A..B or a comma-separated list (default: --seed)");
  cmd->add_option("--out", flags->out, "Directory for runs/, runs.csv and sweep.csv")->required();
  cmd->add_option("-j,--jobs", flags->jobs, "Runs simulated at once (default: the cores this process may use)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cmd->callback([&run, flags] { run = [flags] { return RunSweep(*flags); }; });
}

}  // namespace weft::cli
