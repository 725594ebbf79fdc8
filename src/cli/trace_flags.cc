#include "cli/trace_flags.h"

#include <ostream>

#include "core/status.h"

namespace weft::cli {

void TraceFlags::Register(CLI::App& cmd) {
  cmd.add_option("--window", window, "Only jobs arriving in START:END (trace seconds; either side may be empty); "
                                     "arrivals then count from START");
  cmd.add_option("--sample", sample, "Keep each job with this probability (by its name and --seed)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--machines", machines, "Replace the trace's cluster with this many machines like its largest (0: keep)")
      ->capture_default_str();
  cmd.add_option("--scale-arrivals", scale_arrivals, "Multiply the arrival rate by this (arrival times are divided by it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--users", users,
                 "Give each job the trace leaves without a user one of K users (u0, u1, ...), by a hash of its "
                 "name (0: keep)")
      ->capture_default_str();
  cmd.add_option("--stages", stages,
                 "google-2011/2019: a job whose tasks differ in demand becomes one stage per distinct demand "
                 "(by-demand) or one stage with per-task demands (per-job)")
      ->check(CLI::IsMember({"by-demand", "per-job"}))
      ->capture_default_str();
}

bool TraceFlags::Given() const {
  return !window.empty() || sample != 1 || machines != 0 || scale_arrivals != 1 || users != 0 || stages != "by-demand";
}

absl::StatusOr<TraceOptions> TraceFlags::Options(uint64_t seed) const {
  TraceOptions o;
  if (!window.empty()) RETURN_IF_ERROR(ParseWindow(window, o));
  o.sample = sample;
  o.seed = seed;
  o.machines = machines;
  o.scale_arrivals = scale_arrivals;
  o.users = users;
  o.stage_per_job = stages == "per-job";
  return o;
}

void PrintReport(std::ostream& out, std::string_view prefix, const TraceReport& report) {
  for (const std::string& line : report.Lines()) out << prefix << line << "\n";
}

}  // namespace weft::cli
