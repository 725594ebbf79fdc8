// Simulator throughput and memory harness (not a test; see BENCHMARKS.md).
//
//   weft_bench_sim [--policy fifo] [--machines 10000] [--tasks 1000000] [--model fixed]
//                  [--check] [--out DIR]
//
// Builds a synthetic workload in memory, simulates it (by default with no
// result files and no checker, to measure the engine and policy alone), and
// prints one line:
// tasks, events, wall seconds, tasks/s, events/s, peak RSS and the RSS growth
// per task over the workload alone.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "sim/simulation.h"
#include "synthetic_workload.h"

namespace {

// Current resident set size in bytes, from /proc/self/statm.
long CurrentRssBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

long PeakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft simulator throughput benchmark"};
  std::string policy = "fifo", model = "fixed";
  weft::bench::SyntheticSpec spec;
  app.add_option("--policy", policy);
  app.add_option("--machines", spec.machines);
  app.add_option("--tasks", spec.tasks);
  app.add_option("--tasks-per-job", spec.tasks_per_job);
  app.add_option("--load", spec.load);
  bool check = false;
  std::string out;
  app.add_flag("--check", check, "Run the schedule checker too");
  app.add_option("--out", out, "Also write tasks.csv/jobs.csv/summary.json there");
  app.add_option("--model", model)->check(CLI::IsMember({"fixed", "contention"}));
  CLI11_PARSE(app, argc, argv);

  const long rss_before = CurrentRssBytes();
  const weft::Workload workload = weft::bench::BuildSyntheticWorkload(spec);
  const long rss_workload = CurrentRssBytes();
  const uint64_t tasks = workload.NumTasks();

  weft::sim::SimulationRequest request;
  request.policy = policy;
  request.check = check;
  request.out_dir = out;
  request.options.model =
      model == "contention" ? weft::sim::ExecutionModel::kContention : weft::sim::ExecutionModel::kFixed;
  const double cpu_before = CpuSeconds();
  auto result = weft::sim::Simulate(workload, request);
  const double cpu = CpuSeconds() - cpu_before;
  if (!result.ok() || !result->status.ok()) {
    std::fprintf(stderr, "run failed: %s\n",
                 std::string(result.ok() ? result->status.message() : result.status().message()).c_str());
    return 1;
  }
  const double wall = result->wall_seconds;
  const long peak = PeakRssBytes();
  std::printf("%s",
              fmt::format("policy={} model={} check={} out={} machines={} jobs={} tasks={} events={} wall_s={:.3f} cpu_s={:.3f} "
                          "tasks_per_cpu_s={:.0f} tasks_per_s={:.0f} events_per_s={:.0f} peak_rss_mb={:.1f} workload_bytes_per_task={:.1f} "
                          "run_bytes_per_task={:.1f} makespan_s={:.1f} avg_jct_s={:.2f}\n",
                          policy, model, check, !out.empty(), spec.machines, workload.jobs.size(), tasks, result->stats.events, wall, cpu,
                          static_cast<double>(tasks) / cpu, static_cast<double>(tasks) / wall, static_cast<double>(result->stats.events) / wall,
                          static_cast<double>(peak) / 1e6,
                          static_cast<double>(rss_workload - rss_before) / static_cast<double>(tasks),
                          static_cast<double>(peak - rss_workload) / static_cast<double>(tasks), result->summary.makespan,
                          result->summary.avg_jct)
                  .c_str());
  return 0;
}
