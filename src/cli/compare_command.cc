// weft compare: simulates one workload under several policies and prints one
// aligned table row per policy (optionally also as CSV). With -j N the
// policies run on N threads; rows and messages come out in policy order
// after all runs end, so the output is the serial one but for wall_s.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <mutex>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/compare_progress.h"
#include "cli/compare_table.h"
#include "cli/parallel_runs.h"
#include "cli/policy_traits.h"
#include "cli/sim_flags.h"
#include "core/status.h"
#include "fmt/format.h"
#include "metrics/results_writer.h"
#include "policy/registry.h"
#include "sim/simulation.h"

namespace weft::cli {
namespace {

struct CompareFlags {
  SimFlags common;
  std::string policies = "fifo";
  std::vector<std::string> params;  // POLICY:k=v, or k=v for every policy that has k
  std::string csv;
  std::string out;  // DIR: each policy's results in DIR/POLICY
  std::string baseline;  // a compared policy: adds columns normalised to it
  unsigned jobs = DefaultJobs();
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int RunCompare(const CompareFlags& f) {
  auto prepared = Prepare(f.common);
  if (!prepared) return kExitBadInput;
  std::vector<std::string> names;
  if (f.policies == "all") {
    for (const policy::PolicyInfo* p : policy::AllPolicies()) names.push_back(p->name);
  } else {
    names = Split(f.policies, ',');
  }
  if (!f.baseline.empty() && std::find(names.begin(), names.end(), f.baseline) == names.end()) {
    std::cerr << fmt::format("error: --baseline {}: not one of the compared policies\n", f.baseline);
    return kExitBadInput;
  }
  std::vector<std::vector<std::string>> params(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    for (const std::string& p : f.params) {
      const auto colon = p.find(':');
      if (colon == std::string::npos) {
        params[i].push_back(p);
      } else if (p.substr(0, colon) == names[i]) {
        params[i].push_back(p.substr(colon + 1));
      }
    }
  }
  // One job source per run, opened as the run starts: a trace is read once
  // per run, as the run goes, so memory follows the runs going at once.
  std::unique_ptr<JobSource> first_source;
  std::mutex sources_mu;
  std::vector<std::optional<absl::StatusOr<sim::SimulationResult>>> runs(names.size());
  const bool parallel = f.jobs > 1 && names.size() > 1;
  // On a terminal: which policies run and which are done (the table comes
  // only once all have ended).
  std::optional<CompareProgress> progress;
  if (!f.common.no_progress && isatty(STDERR_FILENO)) progress.emplace(std::cerr, names, parallel);
  RunInParallel(f.jobs, names.size(), [&](size_t i) {
    sim::SimulationRequest request = Request(f.common, prepared->options, names[i], params[i]);
    if (parallel) request.progress = false;  // one bar per thread would garble the terminal
    if (!f.out.empty()) request.out_dir = f.out + "/" + names[i];
    absl::StatusOr<std::unique_ptr<JobSource>> source;
    {
      std::lock_guard lock(sources_mu);
      source = prepared->Source();
    }
    if (!source.ok()) {
      runs[i] = source.status();
      return;
    }
    if (progress) progress->Started(i);
    const auto start = std::chrono::steady_clock::now();
    runs[i] = sim::Simulate(**source, request);
    if (progress) {
      const bool ok = runs[i]->ok() && (*runs[i])->status.ok();
      progress->Finished(i, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), ok);
    }
    if (i == 0) first_source = std::move(*source);  // its report is printed below; the others go now
  });
  progress.reset();  // its status line cleared before anything else is printed
  if (first_source) PrintSourceReport(*first_source);
  std::vector<sim::SimulationResult> results;
  int exit_code = kExitOk;
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StatusOr<sim::SimulationResult>& result = *runs[i];
    if (!result.ok()) return ReportError(result.status());
    if (!result->status.ok()) {
      std::cerr << fmt::format("error: policy {}: {}\n", names[i], StatusMessage(result->status));
      exit_code = kExitFailure;
    }
    results.push_back(std::move(*result));
  }
  const sim::SimulationResult* baseline = nullptr;
  for (const auto& r : results) {
    if (r.policy == f.baseline) baseline = &r;
  }
  std::cout << CompareTable(results, baseline);
  std::string csv = "policy,avg_jct,median_jct,p95_jct,makespan,cpu_util,mem_util,delay_mean,delay_p95,jobs_failed,"
                    "wall_seconds,check_ok,makespan_lb,makespan_ratio,median_job_ratio,p95_job_ratio,cpu_used,mem_used,"
                    "clairvoyant,over_commits\n";
  for (const auto& r : results) {
    const RunSummary& s = r.summary;
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", CsvField(r.policy), s.avg_jct,
                       s.median_jct, s.p95_jct, s.makespan, s.utilization[kCpu], s.utilization[kMem], s.delay_mean,
                       s.delay_p95, s.jobs_failed, r.wall_seconds, r.status.ok() ? "true" : "false", s.makespan_lb,
                       s.makespan_ratio, s.median_job_ratio, s.p95_job_ratio, s.used[kCpu], s.used[kMem],
                       ClairvoyanceOf(r.summary_json), CsvField(OverCommitsOf(r.summary_json)));
  }
  if (!f.csv.empty()) {
    std::ofstream out(f.csv);
    out << csv;
    if (!out) {
      std::cerr << fmt::format("error: --csv {}: cannot write there\n", f.csv);
      return kExitFailure;
    }
  }
  return exit_code;
}

}  // namespace

void AddCompareCommand(CLI::App& app, CommandRun& run) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* cmd = app.add_subcommand("compare", "Simulate a workload under several policies and compare them");
  flags->common.Register(*cmd);
  flags->common.RegisterPositional(*cmd);
  cmd->add_option("--policies", flags->policies, "Comma-separated policy names, or \"all\"")->capture_default_str();
  cmd->add_option("--param", flags->params, "POLICY:k=v for one policy, or k=v for all; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--csv", flags->csv, "Also write the table as CSV to this file");
  cmd->add_option("--baseline", flags->baseline,
                  "A compared policy: adds the mean and p95 JCT of each policy divided by this one's");
  cmd->add_option("--out", flags->out, "Write each policy's results (as weft sim --out) to DIR/POLICY");
  cmd->add_option("-j,--jobs", flags->jobs, "Policies simulated at once (default: the cores this process may use)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  cmd->callback([&run, flags] { run = [flags] { return RunCompare(*flags); }; });
}

}  // namespace weft::cli
