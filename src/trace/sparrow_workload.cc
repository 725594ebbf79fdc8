#include "trace/sparrow_workload.h"

#include <algorithm>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"

namespace weft {

Workload BuildSparrowWorkload(const SparrowWorkloadSpec& spec) {
  Workload w;
  const Resources capacity = *Resources::FromUnits({static_cast<double>(spec.cores), 4.0 * spec.cores, 100, 100});
  for (uint32_t m = 0; m < spec.machines; ++m) w.cluster.AddMachine(fmt::format("n{}", m), RackId(m / 40), capacity);
  const size_t users = std::max(spec.user_weights.size(), spec.user_priorities.size());
  w.users = {"default"};
  if (users > 0) {
    w.users.clear();
    for (size_t u = 0; u < users; ++u) w.users.push_back(fmt::format("u{}", u));
  }
  const Resources demand = *Resources::FromUnits({1, 1, 0, 0});
  Rng arrivals = Rng(spec.seed).Fork(1);
  Rng durations = Rng(spec.seed).Fork(2);
  // Offered work per second = load x cores: jobs arrive every
  // (tasks x mean) / (load x cores) seconds on average.
  const double mean_gap_us =
      spec.tasks_per_job * spec.mean_task_ms * 1000.0 / (spec.load * spec.machines * spec.cores);
  double t = 0;
  w.jobs.reserve(spec.jobs);
  for (uint64_t j = 0; j < spec.jobs; ++j) {
    Job job;
    job.name = fmt::format("j{}", j);
    job.arrival_us = static_cast<TimeUs>(t);
    t += arrivals.Exponential(mean_gap_us);
    job.user = UserId(0);
    if (users > 0) {
      const size_t u = j % users;
      job.user = UserId(static_cast<uint32_t>(u));
      if (u < spec.user_weights.size()) job.weight = spec.user_weights[u];
      if (u < spec.user_priorities.size()) job.priority = spec.user_priorities[u];
    }
    Stage st;
    st.name = "s";
    st.num_tasks = spec.tasks_per_job;
    st.durations_us.resize(spec.tasks_per_job);
    for (TimeUs& d : st.durations_us) {
      d = std::max<TimeUs>(1, static_cast<TimeUs>(durations.Exponential(spec.mean_task_ms * 1000.0)));
    }
    st.duration_us = spec.mean_task_ms * 1000;
    st.demand = demand;
    st.usage = demand;
    job.stages.push_back(std::move(st));
    job.topo_order = {0};
    job.num_tasks = spec.tasks_per_job;
    w.jobs.push_back(std::move(job));
  }
  return w;
}

double IdealMedianResponseUs(const Workload& w) {
  std::vector<double> longest;
  for (const Job& job : w.jobs) {
    TimeUs m = 0;
    for (const Stage& s : job.stages) {
      for (uint32_t i = 0; i < s.num_tasks; ++i) m = std::max(m, s.TaskDuration(i));
    }
    longest.push_back(static_cast<double>(m));
  }
  if (longest.empty()) return 0;
  std::sort(longest.begin(), longest.end());
  const size_t n = longest.size();
  return n % 2 == 1 ? longest[n / 2] : (longest[n / 2 - 1] + longest[n / 2]) / 2;
}

double IdealMeanResponseUs(const SparrowWorkloadSpec& spec) {
  double h = 0;
  for (uint32_t k = 1; k <= spec.tasks_per_job; ++k) h += 1.0 / k;
  return spec.mean_task_ms * 1000.0 * h;
}

}  // namespace weft
