// File: trace/sparrow_workload.h
//
// BuildSparrowWorkload: the synthetic workload of Sparrow's Fig. 3 (Ousterhout
// et al., SOSP 2013, §3): `machines` identical nodes with `cores` cores each,
// jobs of `tasks_per_job` one-core tasks in a single stage, task durations
// exponential with mean `mean_task_ms` (drawn per task), Poisson job arrivals
// at the rate that offers `load` x the cluster's cores. Built in memory (a
// Fig. 3-sized JSON file would be hundreds of megabytes). Deterministic in
// `seed`; thread-safe (no shared state).
//
// IdealMedianResponseUs and IdealMeanResponseUs: what a job would see with no
// queueing at all (its longest task): the median over the workload's jobs,
// and the expectation mean x H(tasks_per_job) (the paper's 680 ms for 500
// tasks of 100 ms).
//
// With several users, jobs go round-robin to users u0, u1, ...
#pragma once

#include <cstdint>
#include <vector>

#include "model/workload.h"

namespace weft {

struct SparrowWorkloadSpec {
  uint32_t machines = 10'000;
  uint32_t cores = 1;
  uint32_t tasks_per_job = 500;
  uint64_t jobs = 200;
  double mean_task_ms = 100;
  double load = 0.9;
  uint64_t seed = 1;
  // Users (for §7.4-7.5): job j belongs to user j % n and carries that
  // user's weight and priority; empty: one user, weight 1, priority 0.
  std::vector<double> user_weights;
  std::vector<int> user_priorities;
};

Workload BuildSparrowWorkload(const SparrowWorkloadSpec& spec);

double IdealMedianResponseUs(const Workload& w);
double IdealMeanResponseUs(const SparrowWorkloadSpec& spec);

}  // namespace weft
