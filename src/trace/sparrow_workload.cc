#include "trace/sparrow_workload.h"

#include <algorithm>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"

namespace weft {

namespace {

// Identical nodes of `cores` one-core slots (4 GB a core), racks of 40.
void AddNodes(Workload& w, uint32_t machines, uint32_t cores) {
  const Resources capacity = *Resources::FromUnits({static_cast<double>(cores), 4.0 * cores, 100, 100});
  for (uint32_t m = 0; m < machines; ++m) w.cluster.AddMachine(fmt::format("n{}", m), RackId(m / 40), capacity);
}

// A job of one stage of `tasks` one-core tasks lasting `duration(i)`.
template <typename Duration>
Job OneStageJob(std::string name, TimeUs arrival, uint32_t tasks, double mean_task_ms, Duration duration) {
  Job job;
  job.name = std::move(name);
  job.arrival_us = arrival;
  Stage st;
  st.name = "s";
  st.num_tasks = tasks;
  st.durations_us.resize(tasks);
  for (TimeUs& d : st.durations_us) d = std::max<TimeUs>(1, duration());
  st.duration_us = mean_task_ms * 1000;
  st.demand = *Resources::FromUnits({1, 1, 0, 0});
  st.usage = st.demand;
  job.stages.push_back(std::move(st));
  job.topo_order = {0};
  job.num_tasks = tasks;
  return job;
}

// Mean gap between arrivals of `tasks`-task jobs offering `load` x the cores.
double MeanGapUs(uint32_t tasks, double mean_task_ms, double load, uint32_t machines, uint32_t cores) {
  return tasks * mean_task_ms * 1000.0 / (load * machines * cores);
}

}  // namespace

Workload BuildSparrowWorkload(const SparrowWorkloadSpec& spec) {
  Workload w;
  AddNodes(w, spec.machines, spec.cores);
  const size_t users = std::max(spec.user_weights.size(), spec.user_priorities.size());
  w.users = {"default"};
  if (users > 0) {
    w.users.clear();
    for (size_t u = 0; u < users; ++u) w.users.push_back(fmt::format("u{}", u));
  }
  Rng arrivals = Rng(spec.seed).Fork(1);
  Rng durations = Rng(spec.seed).Fork(2);
  // Offered work per second = load x cores: jobs arrive every
  // (tasks x mean) / (load x cores) seconds on average.
  const double mean_gap_us = MeanGapUs(spec.tasks_per_job, spec.mean_task_ms, spec.load, spec.machines, spec.cores);
  double t = 0;
  w.jobs.reserve(spec.jobs);
  for (uint64_t j = 0; j < spec.jobs; ++j) {
    Job job = OneStageJob(fmt::format("j{}", j), static_cast<TimeUs>(t), spec.tasks_per_job, spec.mean_task_ms, [&] {
      return static_cast<TimeUs>(durations.Exponential(spec.mean_task_ms * 1000.0));
    });
    t += arrivals.Exponential(mean_gap_us);
    job.user = UserId(0);
    if (users > 0) {
      const size_t u = j % users;
      job.user = UserId(static_cast<uint32_t>(u));
      if (u < spec.user_weights.size()) job.weight = spec.user_weights[u];
      if (u < spec.user_priorities.size()) job.priority = spec.user_priorities[u];
    }
    w.jobs.push_back(std::move(job));
  }
  return w;
}

Workload BuildSparrowUsersWorkload(const SparrowUsersSpec& spec) {
  Workload w;
  AddNodes(w, spec.machines, spec.cores);
  w.users.clear();
  for (size_t u = 0; u < spec.users.size(); ++u) w.users.push_back(fmt::format("u{}", u));
  for (size_t u = 0; u < spec.users.size(); ++u) {
    const SparrowUserStream& user = spec.users[u];
    // Streams forked per user, so one user's draws never shift another's.
    Rng arrivals = Rng(spec.seed).Fork(2 * u + 1);
    Rng durations = Rng(spec.seed).Fork(2 * u + 2);
    double from_s = 0;
    uint64_t n = 0;
    for (const auto& [until_s, load] : user.steps) {
      if (load > 0) {
        const double gap_us = MeanGapUs(spec.tasks_per_job, spec.mean_task_ms, load, spec.machines, spec.cores);
        for (double t = from_s * 1e6 + arrivals.Exponential(gap_us); t < until_s * 1e6;
             t += arrivals.Exponential(gap_us)) {
          Job job = OneStageJob(fmt::format("u{}-j{}", u, n++), static_cast<TimeUs>(t), spec.tasks_per_job,
                                spec.mean_task_ms, [&] {
                                  return static_cast<TimeUs>(spec.exponential
                                                                 ? durations.Exponential(spec.mean_task_ms * 1000.0)
                                                                 : spec.mean_task_ms * 1000.0);
                                });
          job.user = UserId(static_cast<uint32_t>(u));
          job.weight = user.weight;
          job.priority = user.priority;
          w.jobs.push_back(std::move(job));
        }
      }
      from_s = until_s;
    }
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const Job& a, const Job& b) { return a.arrival_us < b.arrival_us; });
  return w;
}

std::vector<double> WeightedMaxMinShares(const std::vector<double>& demands, const std::vector<double>& weights,
                                         double capacity) {
  std::vector<double> share(demands.size(), 0);
  std::vector<bool> capped(demands.size(), false);
  double left = capacity;
  // Water-filling: each round, users whose demand is below their weighted
  // part of what is left get their demand; when none is, the rest is split.
  for (bool changed = true; changed && left > 0;) {
    changed = false;
    double total_weight = 0;
    for (size_t u = 0; u < demands.size(); ++u) total_weight += capped[u] ? 0 : weights[u];
    if (total_weight <= 0) break;
    for (size_t u = 0; u < demands.size(); ++u) {
      if (!capped[u] && demands[u] <= left * weights[u] / total_weight) {
        share[u] = demands[u];
        capped[u] = true;
        changed = true;
      }
    }
    if (!changed) {
      for (size_t u = 0; u < demands.size(); ++u) {
        if (!capped[u]) share[u] = left * weights[u] / total_weight;
      }
      break;
    }
    left = capacity;
    for (size_t u = 0; u < demands.size(); ++u) left -= capped[u] ? share[u] : 0;
  }
  return share;
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
