// weft sim: one simulated run of a workload under a policy; writes
// tasks.csv, jobs.csv and summary.json to --out and prints a short summary.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/sim_flags.h"
#include "core/status.h"
#include "fmt/format.h"
#include "sim/simulation.h"

namespace weft::cli {
namespace {

struct SimCommandFlags {
  SimFlags common;
  std::string policy = "fifo";
  std::vector<std::string> params;
  std::string out;
  std::string events;
};

int RunSim(const SimCommandFlags& f) {
  auto prepared = Prepare(f.common);
  if (!prepared) return kExitBadInput;
  sim::SimulationRequest request = Request(f.common, prepared->options, f.policy, f.params);
  request.out_dir = f.out;
  request.events_path = f.events;
  auto source = prepared->Source();
  if (!source.ok()) return ReportError(source.status());
  auto result = sim::Simulate(**source, request);
  PrintSourceReport(**source);
  if (!result.ok()) return ReportError(result.status());
  const RunSummary& s = result->summary;
  std::cout << fmt::format(
      "{}: {} jobs ({} failed), {} tasks, makespan {:.3f} s, avg JCT {:.3f} s, median {:.3f} s, p95 {:.3f} s, "
      "cpu held {:.1f}%, used {:.1f}%, {:.2f} s wall{}\n",
      f.policy, s.jobs, s.jobs_failed, s.tasks, s.makespan, s.avg_jct, s.median_jct, s.p95_jct,
      100 * s.utilization[kCpu], 100 * s.used[kCpu], result->wall_seconds, f.out.empty() ? "" : fmt::format(", results in {}", f.out));
  return result->status.ok() ? kExitOk : ReportError(result->status);
}

}  // namespace

void AddSimCommand(CLI::App& app, CommandRun& run) {
  auto flags = std::make_shared<SimCommandFlags>();
  CLI::App* cmd = app.add_subcommand("sim", "Simulate a workload under one policy");
  flags->common.Register(*cmd);
  flags->common.RegisterPositional(*cmd);
  cmd->add_option("--policy,-p", flags->policy, "Policy name (see 'weft policies')")->capture_default_str();
  cmd->add_option("--param", flags->params, "Policy parameter k=v; repeatable")->allow_extra_args(false);
  cmd->add_option("--out,-o", flags->out, "Directory for tasks.csv, jobs.csv and summary.json");
  cmd->add_option("--events", flags->events, "Also write one line per event to this file");
  cmd->callback([&run, flags] { run = [flags] { return RunSim(*flags); }; });
}

}  // namespace weft::cli
