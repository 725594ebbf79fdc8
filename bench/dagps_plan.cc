// DAGPS schedule-builder harness (not a test; see BENCHMARKS.md and
// src/policy/dagps/builder.h).
//
//   weft_bench_dagps_plan [--tasks 10000] [--stages 50] [--machines 100] [--seed 1]
//                         [--delta 0.1] [--max-candidates 0] [--no-partitions] [--reps 3]
//   weft_bench_dagps_plan --workload examples/tpch-small.json --job 0 --print 40
//
// Without --workload it builds a random layered DAG in memory (stages of
// equal-demand tasks with per-task durations, 1-3 parents each among the
// previous 8 stages; demands up to half a machine) on identical 16-core,
// 64 GB machines, plans it `reps` times and prints one line: tasks, stages,
// machines, candidates, parts, planned makespan, tasks placed while
// searching and the best wall and CPU times. With --workload it plans job `job` of
// the file on the file's cluster. --print N prints the plan (FormatSchedule:
// the chosen division and order per part, then the first N tasks by start):
// this is how a person inspects a DAGPS plan.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "core/random.h"
#include "fmt/format.h"
#include "policy/dagps/builder.h"
#include "trace/workload_reader.h"

namespace dagps = weft::policy::dagps;

namespace {

weft::Resources Units(double cpu, double mem) {
  weft::Resources r;
  r.set_micro(weft::kCpu, static_cast<int64_t>(cpu * weft::kMicroUnits));
  r.set_micro(weft::kMem, static_cast<int64_t>(mem * weft::kMicroUnits));
  return r;
}

dagps::PlanInput RandomDag(uint64_t tasks, uint32_t stages, uint32_t machines, uint64_t seed) {
  weft::Rng rng(seed);
  dagps::PlanInput in;
  in.machines.assign(machines, Units(16, 64));
  const uint64_t per_stage = std::max<uint64_t>(1, tasks / stages);
  for (uint32_t s = 0; s < stages; ++s) {
    dagps::PlanStage st;
    st.demand = Units(0.5 + 7.5 * rng.Uniform(), 1 + 31 * rng.Uniform());
    const double mean_s = 1 + 59 * rng.Uniform() * rng.Uniform();
    const uint64_t n = s + 1 == stages ? tasks - per_stage * (stages - 1) : per_stage;
    for (uint64_t i = 0; i < n; ++i) {
      st.durations.push_back(static_cast<weft::TimeUs>(mean_s * (0.8 + 0.4 * rng.Uniform()) * 1e6));
    }
    in.stages.push_back(std::move(st));
    if (s == 0) continue;
    const uint32_t parents = 1 + static_cast<uint32_t>(rng.UniformInt(3));
    for (uint32_t k = 0; k < parents; ++k) {
      const uint32_t window = std::min<uint32_t>(s, 8);
      const uint32_t p = s - 1 - static_cast<uint32_t>(rng.UniformInt(window));
      auto& ch = in.stages[p].children;
      if (std::find(ch.begin(), ch.end(), s) == ch.end()) in.AddEdge(p, s);
    }
  }
  in.ComputeTopoOrder();
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"DAGPS schedule builder benchmark"};
  uint64_t tasks = 10'000, seed = 1;
  uint32_t stages = 50, machines = 100, reps = 3, job = 0;
  size_t print = 0;
  std::string workload_path;
  dagps::BuildOptions options;
  bool no_partitions = false;
  app.add_option("--tasks", tasks);
  app.add_option("--stages", stages);
  app.add_option("--machines", machines);
  app.add_option("--seed", seed);
  app.add_option("--delta", options.delta);
  app.add_option("--max-candidates", options.max_candidates);
  app.add_flag("--no-partitions", no_partitions);
  app.add_option("--reps", reps);
  app.add_option("--workload", workload_path);
  app.add_option("--job", job);
  app.add_option("--print", print, "print the plan and its first N tasks");
  CLI11_PARSE(app, argc, argv);
  options.split_partitions = !no_partitions;

  dagps::PlanInput input;
  if (!workload_path.empty()) {
    auto workload = weft::ReadWorkloadFile(workload_path);
    if (!workload.ok() || job >= workload->jobs.size()) {
      std::fprintf(stderr, "cannot read job %u of %s\n", job, workload_path.c_str());
      return 2;
    }
    input = dagps::PlanInputFromJob(workload->jobs[job], workload->cluster);
  } else {
    input = RandomDag(tasks, stages, machines, seed);
  }

  // Wall time and this process's CPU time: the machine is shared, and CPU
  // time is what other sessions' load disturbs least.
  double best_ms = 1e300;
  double best_cpu_ms = 1e300;
  absl::StatusOr<dagps::Schedule> schedule;
  for (uint32_t r = 0; r < std::max<uint32_t>(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    schedule = dagps::BuildSchedule(input, options);
    const std::clock_t c1 = std::clock();
    const auto t1 = std::chrono::steady_clock::now();
    best_ms = std::min(best_ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
    best_cpu_ms = std::min(best_cpu_ms, 1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
  }
  if (!schedule.ok()) {
    std::fprintf(stderr, "plan failed\n");
    return 1;
  }
  uint32_t candidates = 0;
  for (const auto& part : schedule->parts) candidates += part.candidates;
  const bool valid = dagps::CheckSchedule(input, *schedule).ok();
  fmt::print("tasks={} stages={} machines={} candidates={} parts={} makespan_s={:.3f} placements={} valid={} "
             "best_ms={:.1f} best_cpu_ms={:.1f}\n",
             input.num_tasks(), input.stages.size(), input.machines.size(), candidates, schedule->parts.size(),
             static_cast<double>(schedule->makespan) / 1e6, schedule->placements, valid, best_ms, best_cpu_ms);
  if (print > 0) fmt::print("{}", dagps::FormatSchedule(input, *schedule, print));
  return valid ? 0 : 1;
}
