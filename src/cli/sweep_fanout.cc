#include "cli/sweep_fanout.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <sys/wait.h>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft::cli {

std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";  // close, an escaped quote, reopen
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string SweepCommandLine(const std::string& cwd, const std::string& weft, const std::vector<std::string>& args) {
  std::string line = fmt::format("cd {} && {} sweep", ShellQuote(cwd), ShellQuote(weft));
  for (const std::string& a : args) line += " " + ShellQuote(a);
  return line;
}

std::string EmitWorkloadJson(const std::string& name, const std::string& command, size_t runs) {
  // A nominal duration and a one-core demand: a cluster needs both to plan,
  // and a run of the simulator uses one core.
  nlohmann::ordered_json runs_stage = {{"name", "runs"},
                                       {"tasks", runs},
                                       {"duration", 1.0},
                                       {"demand", {{"cpu", 1}, {"mem", 1}}},
                                       {"command", command + " --only \"$WEFT_TASK\""}};
  nlohmann::ordered_json gather_stage = {{"name", "gather"},
                                         {"tasks", 1},
                                         {"duration", 1.0},
                                         {"demand", {{"cpu", 1}, {"mem", 1}}},
                                         {"after", {"runs"}},
                                         {"command", command + " --gather"}};
  nlohmann::ordered_json w = {{"weft", 1},
                              {"jobs", {{{"name", name}, {"stages", {runs_stage, gather_stage}}}}}};
  return w.dump(2) + "\n";
}

std::string SlurmScript(const std::string& command, size_t runs, const std::string& out_dir) {
  return fmt::format(
      "#!/bin/sh\n"
      "# weft sweep: one array task per run; written by `weft sweep --slurm`.\n"
      "#SBATCH --job-name=weft-sweep\n"
      "#SBATCH --array=0-{}\n"
      "#SBATCH --output={}/slurm/run-%a.out\n"
      "{} --only \"$SLURM_ARRAY_TASK_ID\"\n",
      runs - 1, out_dir, command);
}

Captured RunCaptured(const std::string& command) {
  Captured c;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return c;
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) c.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  c.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  while (!c.output.empty() && (c.output.back() == '\n' || c.output.back() == '\r')) c.output.pop_back();
  return c;
}

namespace {

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

absl::StatusOr<SlurmSubmission> SubmitToSlurm(const std::string& script_path, const std::string& gather_command,
                                              const std::string& out_dir, const std::vector<std::string>& extra,
                                              bool wait) {
  if (RunCaptured("command -v sbatch").status != 0) {
    return absl::FailedPreconditionError("--slurm needs Slurm's sbatch on PATH");
  }
  std::string extra_args;
  for (const std::string& a : extra) extra_args += " " + ShellQuote(a);
  const Captured array =
      RunCaptured(fmt::format("sbatch --parsable{}{} {}", wait ? " --wait" : "", extra_args, ShellQuote(script_path)));
  // --parsable prints "JOBID[;CLUSTER]"; with --wait a failed run makes
  // sbatch exit non-zero after printing the id: the gather reports it.
  const std::string id = FirstLine(array.output).substr(0, FirstLine(array.output).find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return absl::FailedPreconditionError(fmt::format("sbatch refused the sweep: {}", FirstLine(array.output)));
  }
  SlurmSubmission s{.array_job = id, .gather_job = {}};
  if (wait) return s;
  const Captured gather = RunCaptured(fmt::format(
      "sbatch --parsable --job-name=weft-sweep-gather --dependency=afterany:{}{} --output={} --wrap={}", id,
      extra_args, ShellQuote(out_dir + "/slurm/gather.out"), ShellQuote(gather_command)));
  s.gather_job = FirstLine(gather.output).substr(0, FirstLine(gather.output).find(';'));
  if (gather.status != 0 || s.gather_job.empty()) {
    return absl::FailedPreconditionError(
        fmt::format("sbatch took the runs (job {}) but refused the gather job: {}", id, FirstLine(gather.output)));
  }
  return s;
}

RunOutcome ReadRunOutcome(const std::string& run_dir) {
  RunOutcome r;
  const std::string path = run_dir + "/summary.json";
  std::ifstream in(path);
  if (!in) {
    r.error = fmt::format("{}: missing (the run did not end)", path);
    return r;
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    r.error = fmt::format("{}: not a summary", path);
    return r;
  }
  // Metrics a run could not compute are absent: they read as 0, as in the
  // run's own summary.
  auto number = [&](const nlohmann::json::json_pointer& p) {
    return j.contains(p) && j.at(p).is_number() ? j.at(p).get<double>() : 0.0;
  };
  using P = nlohmann::json::json_pointer;
  RunSummary& s = r.summary;
  s.avg_jct = number(P("/avg_jct"));
  s.median_jct = number(P("/median_jct"));
  s.p95_jct = number(P("/p95_jct"));
  s.makespan = number(P("/makespan"));
  s.utilization[kCpu] = number(P("/utilization/cpu"));
  s.utilization[kMem] = number(P("/utilization/mem"));
  s.delay_p95 = number(P("/scheduling_delay/p95"));
  s.jobs_failed = static_cast<uint64_t>(number(P("/jobs_failed")));
  s.makespan_ratio = number(P("/bounds/makespan_ratio"));
  r.wall_seconds = number(P("/wall_seconds"));
  const std::string status = j.value("status", std::string("missing"));
  r.ok = status == "ok";
  if (!r.ok) r.error = status;
  return r;
}

}  // namespace weft::cli
