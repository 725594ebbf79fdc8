// weft trace convert|inspect FORMAT:PATH[,PATH...]: the native trace readers
// (docs/traces.md) from the command line. `convert` writes a weft workload
// (FORMATS.md section 1), job by job, renamed into place only when the whole
// trace was read; `inspect` prints the data-quality report: rows read, jobs
// and tasks kept, what was skipped and why, and the distributions of the
// workload the trace becomes. Bad input exits 2 with one stderr line.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/sim_flags.h"
#include "cli/trace_flags.h"
#include "cli/trace_folders.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/trace_formats.h"
#include "trace/trace_stats.h"

namespace weft::cli {
namespace {

struct TraceCommandFlags {
  std::string spec;
  std::string out;
  uint64_t seed = 1;
  TraceFlags trace;
};

absl::StatusOr<std::pair<TraceSpec, TraceOptions>> Parse(const TraceCommandFlags& f) {
  ASSIGN_OR_RETURN(TraceSpec spec, ParseTraceArgument(f.spec));
  ASSIGN_OR_RETURN(TraceOptions options, f.trace.Options(f.seed));
  return std::make_pair(std::move(spec), options);
}

int RunConvert(const TraceCommandFlags& f) {
  auto parsed = Parse(f);
  if (!parsed.ok()) return ReportError(parsed.status());
  TraceReport report;
  JsonWorkloadWriter writer(f.out);
  absl::Status status = ReadTrace(parsed->first, parsed->second, writer, report);
  if (status.ok()) status = writer.Finish();
  if (!status.ok()) return ReportError(status);
  PrintReport(std::cout, "", report);
  std::cout << fmt::format("wrote {} jobs, {} tasks to {}\n", report.jobs_written, report.tasks_written, f.out);
  return kExitOk;
}

int RunInspect(const TraceCommandFlags& f) {
  auto parsed = Parse(f);
  if (!parsed.ok()) return ReportError(parsed.status());
  TraceReport report;
  TraceStatsSink stats;
  if (const absl::Status s = ReadTrace(parsed->first, parsed->second, stats, report); !s.ok()) return ReportError(s);
  PrintReport(std::cout, "", report);
  for (const std::string& line : stats.Lines()) std::cout << line << "\n";
  return kExitOk;
}

void AddTraceOptions(CLI::App& cmd, TraceCommandFlags& f) {
  cmd.add_option("trace", f.spec, "FORMAT:PATH[,PATH...] (formats: google-2011, google-2019, alibaba-2018, "
                                  "alibaba-2017, decima-tpch, tpch-cloudlab, swim)")
      ->required();
  cmd.add_option("--seed", f.seed, "Seed of --sample and of formats that draw (decima-tpch)")->capture_default_str();
  f.trace.Register(cmd);
}

}  // namespace

void AddTraceCommand(CLI::App& app, CommandRun& run) {
  CLI::App* trace = app.add_subcommand("trace", "Read the public cluster traces natively (docs/traces.md)");
  trace->require_subcommand(1);

  auto convert = std::make_shared<TraceCommandFlags>();
  CLI::App* c = trace->add_subcommand("convert", "Convert a trace to a weft workload file");
  AddTraceOptions(*c, *convert);
  c->add_option("--out,-o", convert->out, "Workload file to write (weft JSON)")->required();
  c->callback([&run, convert] { run = [convert] { return RunConvert(*convert); }; });

  auto inspect = std::make_shared<TraceCommandFlags>();
  CLI::App* i = trace->add_subcommand("inspect", "Print a trace's data-quality report");
  AddTraceOptions(*i, *inspect);
  i->callback([&run, inspect] { run = [inspect] { return RunInspect(*inspect); }; });
}

}  // namespace weft::cli
