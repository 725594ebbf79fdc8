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
#include <utility>
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

// Several users, each submitting its own Poisson stream of jobs whose rate
// changes over time (Sparrow §7.5-7.6: a user who keeps the cluster busy and
// one whose demand steps up and down; a high-priority user at a fixed load
// and a low-priority one at a growing load). Job j of user u is "u<u>-j<j>";
// the jobs of all users are merged by arrival time (ties: lower user first).
struct SparrowUserStream {
  double weight = 1;
  int priority = 0;
  // Steps of (until_s, load): from the previous step's end (0 for the first)
  // until `until_s` seconds, jobs arrive at the rate that offers `load` x the
  // cluster's cores; load 0 = no jobs.
  std::vector<std::pair<double, double>> steps;
};

struct SparrowUsersSpec {
  uint32_t machines = 100;
  uint32_t cores = 4;
  uint32_t tasks_per_job = 10;
  double mean_task_ms = 100;
  bool exponential = false;  // false: every task lasts mean_task_ms (the paper's §7.4 synthetic tasks)
  uint64_t seed = 1;
  std::vector<SparrowUserStream> users;
};

Workload BuildSparrowUsersWorkload(const SparrowUsersSpec& spec);

// WeightedMaxMinShares: what each user is due of `capacity` slots under
// weighted max-min fairness, given what it asks for (`demands`): capacity is
// split in proportion to the weights, a user asking for less than its part
// gets what it asks, and the rest is split again among the others.
std::vector<double> WeightedMaxMinShares(const std::vector<double>& demands, const std::vector<double>& weights,
                                         double capacity);

double IdealMedianResponseUs(const Workload& w);
double IdealMeanResponseUs(const SparrowWorkloadSpec& spec);

}  // namespace weft
