// weft validate WORKLOAD: reads a workload, checks every rule of the format,
// and prints a one-line summary (exit 0) or the first error (exit 2).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "cli/commands.h"
#include "trace/workload_reader.h"

namespace weft::cli {
namespace {

// ModelSummary: what the workload uses of the MapReduce and locality
// additions (docs/workload-format.md), e.g. "; 3 shuffle edges (slow start
// 0.05-1), 2 stages with profiled phases, locality cost off"; empty when it
// uses none, so summaries of other workloads do not change.
std::string ModelSummary(const Workload& w) {
  uint64_t shuffles = 0, profiled = 0, overridden = 0;
  double min_slowstart = 1, max_slowstart = 0;
  for (const Job& j : w.jobs) {
    for (const Stage& s : j.stages) {
      profiled += !s.phases.empty() && s.phases.front().profiled;
      overridden += !s.demands.empty() || !s.usages.empty();
      for (const Edge& e : s.parents) {
        if (e.kind != EdgeKind::kShuffle) continue;
        ++shuffles;
        min_slowstart = std::min(min_slowstart, e.slowstart);
        max_slowstart = std::max(max_slowstart, e.slowstart);
      }
    }
  }
  const LocalityCost& cost = w.cluster.locality_cost();
  if (shuffles == 0 && profiled == 0 && overridden == 0 && !cost.enabled) return "";
  std::string out = fmt::format("; {} shuffle edges", shuffles);
  if (shuffles > 0) out += fmt::format(" (slow start {:g}-{:g})", min_slowstart, max_slowstart);
  out += fmt::format(", {} stages with profiled phases, {} with per-task demands, locality cost {}", profiled,
                     overridden, cost.enabled ? "on" : "off");
  return out;
}

}  // namespace

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
      std::cout << fmt::format("{}: ok: {} jobs, {} stages, {} tasks, {} machines, {:.1f} cpu-seconds of work{}\n",
                                   *path, workload->jobs.size(), workload->NumStages(), workload->NumTasks(),
                                   workload->cluster.size(), cpu_seconds, ModelSummary(*workload));
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
