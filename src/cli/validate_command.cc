// weft validate WORKLOAD: reads a workload, checks every rule of the format,
// and prints a one-line summary (exit 0) or the first error (exit 2).
#include <iostream>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "cli/commands.h"
#include "trace/workload_reader.h"

namespace weft::cli {

void AddValidateCommand(CLI::App& app, CommandRun& run) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a workload file and summarise it");
  cmd->add_option("workload", *path, "Workload file (weft JSON)")->required();
  cmd->callback([&run, path] {
    run = [path] {
      const std::optional<Workload> workload = ReadWorkloadOrReport(*path);
      if (!workload) return kExitBadInput;
      double cpu_seconds = 0;
      for (const Job& j : workload->jobs) cpu_seconds += j.CpuSeconds();
      std::cout << fmt::format("{}: ok: {} jobs, {} stages, {} tasks, {} machines, {:.1f} cpu-seconds of work\n",
                                   *path, workload->jobs.size(), workload->NumStages(), workload->NumTasks(),
                                   workload->cluster.size(), cpu_seconds);
      return kExitOk;
    };
  });
}

std::optional<Workload> ReadWorkloadOrReport(const std::string& path) {
  absl::StatusOr<Workload> workload = ReadWorkloadFile(path);
  if (workload.ok()) return std::move(*workload);
  std::cerr << "error: " << workload.status().message() << "\n";
  return std::nullopt;
}

}  // namespace weft::cli
