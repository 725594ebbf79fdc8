#include "synthetic_workload.h"

#include <algorithm>
#include <cmath>

#include "core/random.h"
#include "fmt/format.h"

namespace weft::bench {

Workload BuildSyntheticWorkload(const SyntheticSpec& spec) {
  Workload w;
  const Resources capacity = *Resources::FromUnits({16, 64, 200, 1250});
  for (uint32_t m = 0; m < spec.machines; ++m) w.cluster.AddMachine(fmt::format("m{}", m), RackId(m / 40), capacity);
  w.users = {"default"};
  Rng rng(spec.seed);
  const Resources demand = *Resources::FromUnits({1, 2, 0, 0});
  const uint32_t reduce = std::max<uint32_t>(1, spec.tasks_per_job / 4);
  const uint64_t per_job = spec.tasks_per_job + reduce + 1;
  const uint64_t jobs = std::max<uint64_t>(1, spec.tasks / per_job);
  // Arrival rate so that offered cpu work per second = load x cores.
  const double work_per_job = static_cast<double>(per_job) * spec.mean_task_seconds;
  const double cores = 16.0 * spec.machines;
  const double mean_gap = work_per_job / (spec.load * cores);
  double t = 0;
  w.jobs.reserve(jobs);
  for (uint64_t j = 0; j < jobs; ++j) {
    Job job;
    job.name = fmt::format("job{}", j);
    job.arrival_us = static_cast<TimeUs>(t * 1e6);
    t += rng.Exponential(mean_gap);
    job.user = UserId(0);
    const uint32_t counts[3] = {spec.tasks_per_job, reduce, 1};
    const char* names[3] = {"map", "reduce", "out"};
    for (uint32_t s = 0; s < 3; ++s) {
      Stage st;
      st.name = names[s];
      st.num_tasks = counts[s];
      st.duration_us = std::max<TimeUs>(1000, static_cast<TimeUs>(rng.Exponential(spec.mean_task_seconds) * 1e6));
      st.demand = demand;
      st.usage = demand;
      if (s > 0) st.parents.push_back(Edge{s - 1, EdgeKind::kBarrier});
      if (s < 2) st.children.push_back(Edge{s + 1, EdgeKind::kBarrier});
      job.stages.push_back(std::move(st));
    }
    job.topo_order = {0, 1, 2};
    job.num_tasks = per_job;
    w.jobs.push_back(std::move(job));
  }
  return w;
}

}  // namespace weft::bench
