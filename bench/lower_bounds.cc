// Lower-bound computation speed harness (not a test; see BENCHMARKS.md).
//
//   weft_bench_bounds [--workload FILE] [--stages 10000] [--tasks-per-stage 10] [--repeat 5]
//
// Times ComputeJobBounds (metrics/lower_bounds.h) on (1) every job of a
// workload file, default the bundled examples/default.json, and (2) two large
// synthetic DAGs built in memory: a random DAG of --stages stages (each with
// up to three parents among the previous twenty, per-task durations, a
// quarter of the edges pipelined) and a chain of --stages barrier stages (one
// barrier partition per stage, the worst case for NewLB's per-partition
// work). Prints one line per case: jobs, stages, tasks, best wall time of
// --repeat runs, and ns per task.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "CLI/CLI.hpp"
#include "core/random.h"
#include "fmt/format.h"
#include "metrics/lower_bounds.h"
#include "trace/workload_reader.h"

namespace {

using weft::Job;

double BestSeconds(int repeat, const std::function<void()>& fn) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

Job SyntheticDag(uint32_t stages, uint32_t tasks, bool chain) {
  weft::Rng rng(7);
  Job job;
  job.name = chain ? "chain" : "random";
  job.stages.resize(stages);
  for (uint32_t s = 0; s < stages; ++s) {
    weft::Stage& st = job.stages[s];
    st.name = fmt::format("s{}", s);
    st.num_tasks = tasks;
    st.duration_us = 1'000'000;
    for (uint32_t i = 0; i < tasks; ++i) st.durations_us.push_back(500'000 + static_cast<int64_t>(rng.UniformInt(1'000'000)));
    st.demand.set_micro(weft::kCpu, 1'000'000);
    st.demand.set_micro(weft::kMem, 2'000'000);
    if (s > 0) {
      const uint32_t parents = chain ? 1 : 1 + static_cast<uint32_t>(rng.UniformInt(3));
      for (uint32_t k = 0; k < parents; ++k) {
        const uint32_t p = chain ? s - 1 : s - 1 - static_cast<uint32_t>(rng.UniformInt(std::min<uint32_t>(s, 20)));
        const auto kind = !chain && rng.Bernoulli(0.25) ? weft::EdgeKind::kPipelined : weft::EdgeKind::kBarrier;
        st.parents.push_back({p, kind});
        job.stages[p].children.push_back({s, kind});
      }
    }
    job.topo_order.push_back(s);
    job.num_tasks += tasks;
  }
  return job;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft lower-bound benchmark"};
  std::string path = std::string(WEFT_SOURCE_DIR) + "/examples/default.json";
  uint32_t stages = 10'000, tasks = 10;
  int repeat = 5;
  app.add_option("--workload", path);
  app.add_option("--stages", stages);
  app.add_option("--tasks-per-stage", tasks);
  app.add_option("--repeat", repeat);
  CLI11_PARSE(app, argc, argv);

  auto workload = weft::ReadWorkloadFile(path);
  if (!workload.ok()) {
    std::fprintf(stderr, "%s\n", std::string(workload.status().message()).c_str());
    return 2;
  }
  const weft::BoundCapacity cap = weft::BoundCapacity::Of(workload->cluster);
  weft::TimeUs sink = 0;
  auto report = [&](const std::string& name, size_t jobs, size_t num_stages, uint64_t num_tasks, double s) {
    std::printf("%s", fmt::format("case={} jobs={} stages={} tasks={} best_wall_ms={:.3f} ns_per_task={:.1f}\n", name,
                                  jobs, num_stages, num_tasks, s * 1e3, s * 1e9 / static_cast<double>(num_tasks))
                          .c_str());
  };
  const double file_s = BestSeconds(repeat, [&] {
    for (const Job& j : workload->jobs) sink += weft::ComputeJobBounds(j, cap).newlb_us;
  });
  report(path.substr(path.find_last_of('/') + 1), workload->jobs.size(), workload->NumStages(), workload->NumTasks(),
         file_s);
  for (const bool chain : {false, true}) {
    const Job job = SyntheticDag(stages, tasks, chain);
    const double s = BestSeconds(repeat, [&] { sink += weft::ComputeJobBounds(job, cap).newlb_us; });
    report(job.name, 1, job.stages.size(), job.num_tasks, s);
  }
  return sink == 42 ? 1 : 0;  // keep the work observable
}
