// weft bounds --workload W: the lower bounds of DAGPS section 6 (Figure 9)
// for every job of a workload, each job alone on the whole cluster, as CSV
// (FORMATS.md section 3): job,cplen,twork,modcp,newlb in seconds with
// microsecond precision, one row per job in file order. Bad input exits 2
// with one stderr line.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "fmt/format.h"
#include "metrics/lower_bounds.h"
#include "metrics/results_writer.h"
#include "trace/workload_reader.h"

namespace weft::cli {

void AddBoundsCommand(CLI::App& app, CommandRun& run) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("bounds", "Lower bounds per job (CPLen, TWork, ModCP, NewLB), as CSV");
  cmd->add_option("--workload,-w", *path, "Workload file (weft JSON)")->required();
  cmd->callback([&run, path] {
    run = [path] {
      const std::optional<Workload> workload = ReadWorkloadOrReport(*path);
      if (!workload) return kExitBadInput;
      const BoundCapacity cap = BoundCapacity::Of(workload->cluster);
      fmt::memory_buffer out;
      fmt::format_to(std::back_inserter(out), "job,cplen,twork,modcp,newlb\n");
      for (const Job& job : workload->jobs) {
        const JobBounds b = ComputeJobBounds(job, cap);
        fmt::format_to(std::back_inserter(out), "{},{},{},{},{}\n", CsvField(job.name), FormatSeconds(b.cplen_us),
                       FormatSeconds(b.twork_us), FormatSeconds(b.modcp_us), FormatSeconds(b.newlb_us));
      }
      std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
      std::cout.flush();
      return std::cout ? kExitOk : kExitFailure;
    };
  });
}

}  // namespace weft::cli
