#include "cli/sim_flags.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/trace_folders.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/profile_reader.h"
#include "trace/trace_formats.h"
#include "trace/workload_reader.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft::cli {

std::string DefaultWorkloadPath() {
  if (const char* env = std::getenv("WEFT_DEFAULT_WORKLOAD"); env != nullptr && *env != '\0') return env;
  return std::string(WEFT_SOURCE_DIR) + "/examples/default.json";
}

void SimFlags::Register(CLI::App& cmd) {
  cmd.add_option("--workload,-w", workload, "Workload file (default: the bundled examples/default.json)");
  cmd.add_option("--trace", trace, "Replay a trace natively: FORMAT:PATH[,PATH...] (docs/traces.md)");
  trace_flags.Register(cmd);
  cmd.add_option("--seed", seed, "Random seed; the same seed gives the same schedule")->capture_default_str();
  cmd.add_option("--model", model, "Execution model")
      ->check(CLI::IsMember({"fixed", "contention"}))
      ->capture_default_str();
  cmd.add_option("--latency", latency_s, "One-way delay of every message between roles, in seconds")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  cmd.add_option("--max-attempts", max_attempts, "Failed attempts of one task before its job fails")
      ->check(CLI::Range(1, 255))
      ->capture_default_str();
  cmd.add_option("--task-failures", task_failures, "Probability that an attempt fails partway")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  // One value per flag, repeated for more: a workload argument after them is never taken for a value.
  cmd.add_option("--fail", failures, "Fail a machine: MACHINE@T or MACHINE@T:RECOVER_T (seconds); repeatable")
      ->allow_extra_args(false);
  cmd.add_option("--fail-scheduler", scheduler_failures,
                 "Fail a scheduler replica: REPLICA@T (seconds); its jobs fail over to the next replica; repeatable")
      ->allow_extra_args(false);
  cmd.add_option("--profile", profile,
                 "Machine profile: launch, scheduler and over-commit costs (docs/model.md, \"The machine profile\")");
  cmd.add_flag("--no-check", no_check, "Skip the schedule checker (for very large runs)");
  cmd.add_flag("--no-progress", no_progress, "Never draw a progress bar");
  cmd.add_option("--timeline-step", timeline_step_s, "Step of timeline.csv in the --out directory, in seconds")
      ->check(CLI::Range(1e-6, 86400.0))
      ->capture_default_str();
  cmd.add_flag("--compress", compress, "Write the --out directory's CSV files compressed, as NAME.csv.zst (zstd)");
}

void SimFlags::RegisterPositional(CLI::App& cmd) {
  cmd.add_option("workload", positional, "Workload file (or -w W.json, or --trace)");
}

absl::StatusOr<Workload> SimFlags::Load() const {
  if (trace.empty()) {
    if (trace_flags.Given()) {
      return absl::InvalidArgumentError("--window, --sample, --machines, --scale-arrivals and --stages apply to --trace only");
    }
    const std::string& path = !positional.empty() ? positional : workload;
    return ReadWorkloadFile(path.empty() ? DefaultWorkloadPath() : path);
  }
  if (!workload.empty()) return absl::InvalidArgumentError("give --workload or --trace, not both");
  ASSIGN_OR_RETURN(const TraceSpec spec, ParseTraceArgument(trace));
  ASSIGN_OR_RETURN(const TraceOptions options, trace_flags.Options(seed));
  ASSIGN_OR_RETURN(std::unique_ptr<TraceJobSource> source, TraceJobSource::Open(spec, options));
  Workload w;
  w.cluster = source->workload().cluster;
  return w;
}

absl::StatusOr<std::unique_ptr<JobSource>> PreparedRun::Source() {
  if (!trace) return std::make_unique<WorkloadSource>(workload);
  if (opened) return std::unique_ptr<JobSource>(std::move(opened));
  ASSIGN_OR_RETURN(std::unique_ptr<TraceJobSource> source, TraceJobSource::Open(*trace, trace_options));
  return std::unique_ptr<JobSource>(std::move(source));
}

void PrintSourceReport(const JobSource& source) {
  const auto* t = dynamic_cast<const TraceJobSource*>(&source);
  if (t != nullptr && t->read() && t->status().ok()) PrintReport(std::cerr, "trace: ", t->report());
}

namespace {

absl::StatusOr<TimeUs> ParseSeconds(const std::string& text, const std::string& flag) {
  double s = 0;
  try {
    size_t used = 0;
    s = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(fmt::format("{}: \"{}\" is not a number of seconds", flag, text));
  }
  if (!std::isfinite(s) || s < 0) return absl::InvalidArgumentError(fmt::format("{}: {} must be >= 0", flag, text));
  auto us = SecondsToUs(s);
  if (!us.ok()) return absl::InvalidArgumentError(fmt::format("{}: {} is out of range", flag, text));
  return *us;
}

}  // namespace

absl::StatusOr<sim::SimOptions> SimFlags::Options(const Workload& w) const {
  sim::SimOptions o;
  o.seed = seed;
  o.model = model == "contention" ? sim::ExecutionModel::kContention : sim::ExecutionModel::kFixed;
  auto latency = SecondsToUs(latency_s);
  if (!latency.ok()) return absl::InvalidArgumentError("--latency is out of range");
  o.latency_us = *latency;
  o.max_attempts = max_attempts;
  o.task_failure_prob = task_failures;
  if (!profile.empty()) {
    absl::StatusOr<MachineProfile> p = ReadMachineProfile(profile);
    if (!p.ok()) return absl::InvalidArgumentError(fmt::format("--profile: {}", StatusMessage(p.status())));
    o.profile = *std::move(p);
  }
  for (const std::string& f : failures) {
    const auto at = f.find('@');
    if (at == std::string::npos || at == 0) {
      return absl::InvalidArgumentError(fmt::format("--fail \"{}\": write MACHINE@T or MACHINE@T:RECOVER_T", f));
    }
    const std::string name = f.substr(0, at);
    const MachineId m = w.cluster.Find(name);
    if (!m.valid()) return absl::InvalidArgumentError(fmt::format("--fail \"{}\": no machine \"{}\"", f, name));
    std::string rest = f.substr(at + 1);
    sim::MachineFailure failure{m, 0, std::nullopt};
    const auto colon = rest.find(':');
    auto when = ParseSeconds(rest.substr(0, colon), "--fail");
    if (!when.ok()) return when.status();
    failure.at_us = *when;
    if (colon != std::string::npos) {
      auto recover = ParseSeconds(rest.substr(colon + 1), "--fail");
      if (!recover.ok()) return recover.status();
      if (*recover <= failure.at_us) {
        return absl::InvalidArgumentError(fmt::format("--fail \"{}\": recovery must come after the failure", f));
      }
      failure.recover_us = *recover;
    }
    o.failures.push_back(failure);
  }
  for (const std::string& f : scheduler_failures) {
    const auto at = f.find('@');
    uint32_t replica = 0;
    try {
      size_t used = 0;
      const unsigned long r = std::stoul(f.substr(0, at), &used);
      if (at == std::string::npos || used != at || r > UINT32_MAX) throw std::invalid_argument(f);
      replica = static_cast<uint32_t>(r);
    } catch (const std::exception&) {
      return absl::InvalidArgumentError(fmt::format("--fail-scheduler \"{}\": write REPLICA@T", f));
    }
    auto when = ParseSeconds(f.substr(at + 1), "--fail-scheduler");
    if (!when.ok()) return when.status();
    o.scheduler_failures.push_back(sim::SchedulerFailure{replica, *when});
  }
  return o;
}

namespace {

// OpenTrace: --trace's spec and options, and the first run's source (whose
// cluster the options need: --fail names machines).
absl::Status OpenTrace(const SimFlags& flags, PreparedRun& run) {
  if (!flags.workload.empty()) return absl::InvalidArgumentError("give --workload or --trace, not both");
  ASSIGN_OR_RETURN(run.trace, ParseTraceArgument(flags.trace));
  ASSIGN_OR_RETURN(run.trace_options, flags.trace_flags.Options(flags.seed));
  ASSIGN_OR_RETURN(run.opened, TraceJobSource::Open(*run.trace, run.trace_options));
  run.workload.cluster = run.opened->workload().cluster;
  return absl::OkStatus();
}

}  // namespace

std::optional<PreparedRun> Prepare(const SimFlags& flags) {
  PreparedRun run;
  if (!flags.positional.empty() && (!flags.workload.empty() || !flags.trace.empty())) {
    ReportError(absl::InvalidArgumentError(fmt::format("workload \"{}\" given with {}: give one workload, as an argument, "
                                                       "with -w or with --trace",
                                                       flags.positional, flags.trace.empty() ? "-w" : "--trace")));
    return std::nullopt;
  }
  if (!flags.trace.empty()) {
    if (absl::Status status = OpenTrace(flags, run); !status.ok()) {
      ReportError(status);
      return std::nullopt;
    }
  } else {
    auto workload = flags.Load();
    if (!workload.ok()) {
      ReportError(workload.status());
      return std::nullopt;
    }
    run.workload = std::move(*workload);
  }
  auto options = flags.Options(run.workload);
  if (!options.ok()) {
    ReportError(options.status());
    return std::nullopt;
  }
  run.options = *options;
  return run;
}

int ReportError(const absl::Status& status) {
  std::cerr << "error: " << StatusMessage(status) << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument ? kExitBadInput : kExitFailure;
}

sim::SimulationRequest Request(const SimFlags& flags, const sim::SimOptions& options, std::string policy,
                               std::vector<std::string> params) {
  return sim::SimulationRequest{.policy = std::move(policy),
                                .params = std::move(params),
                                .options = options,
                                .timeline_step_us = std::max<TimeUs>(1, std::llround(flags.timeline_step_s * 1e6)),
                                .compress = flags.compress,
                                .check = !flags.no_check,
                                .progress = !flags.no_progress && isatty(STDERR_FILENO)};
}

}  // namespace weft::cli
