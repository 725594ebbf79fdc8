// weft sweep: every combination of workloads x policies x parameter values x
// seeds, simulated on -j threads. Each run writes its own results directory
// (DIR/runs/<workload>/<policy>[/<k=v,...>]/seed-<s>/: tasks.csv, jobs.csv,
// summary.json); DIR/runs.csv has one row per run and DIR/sweep.csv one row
// per configuration (a run without its seed) with the mean and the 95%
// confidence half-width of each metric over the seeds. Runs are independent
// and every output is written in configuration order after all have ended, so
// -j changes nothing but the wall time.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/parallel_runs.h"
#include "cli/sim_flags.h"
#include "cli/sweep_fanout.h"
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
  // Fan-out (docs/sweep.md).
  std::optional<size_t> only;  // run just this run of the plan, no tables
  bool gather = false;         // no runs: tables from the runs' summary.json
  std::string emit;            // write the runs as a weft workload here
  bool slurm = false;          // submit the runs as a Slurm job array
  bool wait = false;           // with --slurm: block until the runs end, then gather
  std::vector<std::string> sbatch_args;
  const CLI::App* cmd = nullptr;  // for the command line the fanned-out runs repeat
};

// The fan-out flags: a fanned-out run repeats the user's command line without
// them (and without -j, which only a local sweep uses).
constexpr std::string_view kFanoutFlags[] = {"--only", "--gather", "--emit", "--slurm", "--wait", "--sbatch-arg",
                                             "--jobs", "--help"};

// GivenArgs: the sweep's command line as the user gave it, fan-out flags left
// out, rebuilt from CLI11's record of what was parsed.
std::vector<std::string> GivenArgs(const CLI::App& cmd) {
  std::vector<std::string> args;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0) continue;
    const std::string name = opt->get_name();
    if (std::find(std::begin(kFanoutFlags), std::end(kFanoutFlags), name) != std::end(kFanoutFlags)) continue;
    if (opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty()) {
      for (const std::string& value : opt->results()) args.push_back(value);
    } else if (opt->get_expected_min() == 0) {
      args.push_back(name);  // a flag
    } else {
      for (const std::string& value : opt->results()) {
        args.push_back(name);
        args.push_back(value);
      }
    }
  }
  return args;
}

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

// WriteWhole is WriteAtomically (commands.h) with the error said on stderr.
bool WriteWhole(const std::string& path, const std::string& text) {
  if (WriteAtomically(path, text)) return true;
  std::cerr << fmt::format("error: {}: cannot write there\n", path);
  return false;
}

// FanOut hands the `runs` runs to a weft cluster (--emit) or to Slurm
// (--slurm); with --slurm --wait it returns once they have ended.
int FanOut(const SweepFlags& f, size_t runs) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  const std::filesystem::path weft = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    std::cerr << "error: cannot tell this weft's own path or directory, which the fanned-out runs repeat\n";
    return kExitFailure;
  }
  const std::string command = SweepCommandLine(cwd.string(), weft.string(), GivenArgs(*f.cmd));
  if (!f.emit.empty()) {
    if (!WriteWhole(f.emit, EmitWorkloadJson("sweep", command, runs))) return kExitBadInput;
    std::cout << fmt::format("{}: {} runs and a gather task; run them with: weft submit {}\n", f.emit, runs, f.emit);
    return kExitOk;
  }
  const std::string out = std::filesystem::absolute(f.out).lexically_normal().string();
  std::filesystem::create_directories(out + "/slurm", ec);
  const std::string script = out + "/sweep.sbatch";
  if (ec || !WriteWhole(script, SlurmScript(command, runs, out))) return kExitBadInput;
  auto submitted = SubmitToSlurm(script, command + " --gather", out, f.sbatch_args, f.wait);
  if (!submitted.ok()) return ReportError(submitted.status());
  if (f.wait) {
    std::cerr << fmt::format("slurm: array job {} ({} runs) ended; gathering\n", submitted->array_job, runs);
  } else {
    std::cout << fmt::format("slurm: array job {} ({} runs), then gather job {}: {}/sweep.csv when it ends\n",
                             submitted->array_job, runs, submitted->gather_job, out);
  }
  return kExitOk;
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
  const size_t num_runs = configs->size() * seeds->size();
  if (f.only && *f.only >= num_runs) {
    std::cerr << fmt::format("error: --only {}: the sweep has runs 0 to {}\n", *f.only, num_runs - 1);
    return kExitBadInput;
  }
  std::error_code ec;
  std::filesystem::create_directories(f.out, ec);
  if (ec || !std::filesystem::is_directory(f.out)) {
    std::cerr << fmt::format("error: --out {}: cannot create the directory\n", f.out);
    return kExitBadInput;
  }

  std::vector<RunOutcome> outcomes;  // one per run: configurations outermost, then seeds
  std::vector<std::pair<size_t, uint64_t>> runs;  // configuration, seed
  for (size_t c = 0; c < configs->size(); ++c) {
    for (uint64_t seed : *seeds) runs.emplace_back(c, seed);
  }
  auto run_dir = [&](size_t i) {
    return fmt::format("{}/runs/{}/seed-{}", f.out, (*configs)[runs[i].first].dir, runs[i].second);
  };

  bool gather = f.gather;
  if (!f.emit.empty() || f.slurm) {
    const int fanned = FanOut(f, runs.size());
    if (fanned != kExitOk || !f.wait) return fanned;
    gather = true;  // --slurm --wait: the runs have ended
  }

  outcomes.resize(runs.size());
  if (gather) {
    for (size_t i = 0; i < runs.size(); ++i) outcomes[i] = ReadRunOutcome(run_dir(i));
  } else {
    std::vector<std::optional<absl::StatusOr<sim::SimulationResult>>> results(runs.size());
    const size_t first = f.only.value_or(0), last = f.only ? *f.only + 1 : runs.size();
    RunInParallel(f.only ? 1 : f.jobs, last - first, [&](size_t k) {
      const size_t i = first + k;
      const SweepConfig& config = (*configs)[runs[i].first];
      sim::SimOptions options = prepared[config.workload].options;
      options.seed = runs[i].second;
      sim::SimulationRequest request = Request(f.common, options, config.policy, config.params);
      request.progress = false;
      request.out_dir = run_dir(i);
      results[i] = sim::Simulate(prepared[config.workload].workload, request);
    });
    for (size_t i = first; i < last; ++i) {
      absl::StatusOr<sim::SimulationResult>& r = *results[i];
      if (!r.ok()) return ReportError(r.status());
      outcomes[i] = RunOutcome{.ok = r->status.ok(),
                               .error = r->status.ok() ? "" : std::string(StatusMessage(r->status)),
                               .wall_seconds = r->wall_seconds,
                               .summary = r->summary};
    }
    if (f.only) {
      const RunOutcome& o = outcomes[*f.only];
      if (!o.ok) std::cerr << fmt::format("error: {}: {}\n", run_dir(*f.only), o.error);
      return o.ok ? kExitOk : kExitFailure;
    }
  }

  int exit_code = kExitOk;
  std::string per_run = "workload,policy,params,seed,check_ok,wall_seconds" + MetricHeader(false) + "\n";
  std::string table = "workload,policy,params,runs,runs_failed" + MetricHeader(true) + "\n";
  std::cout << fmt::format("{:<20} {:<14} {:<24} {:>4} {:>22} {:>22}\n", "workload", "policy", "params", "runs",
                           "avg_jct (95% ci)", "makespan (95% ci)");
  for (size_t c = 0, i = 0; c < configs->size(); ++c) {
    const SweepConfig& config = (*configs)[c];
    std::vector<RunSummary> summaries;
    int failed = 0;
    for (; i < runs.size() && runs[i].first == c; ++i) {
      const RunOutcome& r = outcomes[i];
      if (!r.ok) {
        std::cerr << fmt::format("error: {} seed {}: {}\n", config.dir, runs[i].second, r.error);
        exit_code = kExitFailure;
        ++failed;
      }
      per_run += fmt::format("{},{},{},{},{},{}", CsvField(config.workload_name), CsvField(config.policy),
                             CsvField(config.label), runs[i].second, r.ok ? "true" : "false", r.wall_seconds);
      for (const Metric& m : kMetrics) per_run += fmt::format(",{}", m.get(r.summary));
      per_run += "\n";
      summaries.push_back(r.summary);
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
    if (!WriteWhole(fmt::format("{}/{}", f.out, name), text)) return kExitFailure;
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
                  "repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--seeds", flags->seeds, "Seeds: A..B or a comma-separated list (default: --seed)");
  cmd->add_option("--out", flags->out, "Directory for runs/, runs.csv and sweep.csv")->required();
  cmd->add_option("-j,--jobs", flags->jobs, "Runs simulated at once (default: the cores this process may use)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  CLI::Option* only = cmd->add_option("--only", flags->only,
                                      "Run only run K of the plan (0-based, configurations then seeds), no tables");
  CLI::Option* gather = cmd->add_flag("--gather", flags->gather,
                                      "Run nothing: build runs.csv and sweep.csv from the runs' summary.json files");
  CLI::Option* emit = cmd->add_option("--emit", flags->emit,
                                      "Write the runs as a workload of command tasks for `weft submit`, run nothing");
  CLI::Option* slurm = cmd->add_flag("--slurm", flags->slurm, "Submit the runs as a Slurm job array (sbatch)");
  cmd->add_flag("--wait", flags->wait, "With --slurm: wait for the runs to end, then write the tables here")
      ->needs(slurm);
  cmd->add_option("--sbatch-arg", flags->sbatch_args, "With --slurm: an argument for sbatch; repeatable")
      ->allow_extra_args(false)
      ->needs(slurm);
  only->excludes(gather)->excludes(emit)->excludes(slurm);
  gather->excludes(emit)->excludes(slurm);
  emit->excludes(slurm);
  flags->cmd = cmd;
  cmd->callback([&run, flags] { run = [flags] { return RunSweep(*flags); }; });
}

}  // namespace weft::cli
