// Property tests for the executor policy under machine failures on the
// heterogeneous random clusters of trace/random_workload.h: every run must
// finish every job with a valid schedule.
//
// Why: static allocation lets a job hold executors while it waits for more.
// On a heterogeneous cluster an executor cut down to a small machine cannot
// hold every stage, and after a failure a job may hold only such executors
// while another job holds the room it needs and waits for the room the first
// one holds. Before the idle rule (executor.h) such runs never finished;
// random seed 114 with machines a and b failing (the conformance suite's
// failure pattern) was the first found.
//
// A sweep over more seeds and random failure schedules, for reporting, is
// DISABLED_ here; run it with
//   weft_executor_test --gtest_also_run_disabled_tests --gtest_filter='*Sweep*'
// (WEFT_EXECUTOR_SWEEP_SEEDS=N sets the number of seeds, default 1000;
// WEFT_EXECUTOR_SWEEP_PARAMS="k=v ..." the policy's parameters).
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "core/random.h"
#include "core/status.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "seed_workloads.h"
#include "sim/simulation.h"

namespace weft {
namespace {

using testing::SeedWorkload;

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6); }

struct Variant {
  const char* name;
  sim::ExecutionModel model;
  TimeUs latency_us;
};
constexpr Variant kVariants[] = {
    {"fixed", sim::ExecutionModel::kFixed, 0},
    {"fixed_latency", sim::ExecutionModel::kFixed, 5'000},
    {"contention", sim::ExecutionModel::kContention, 0},
    {"contention_latency", sim::ExecutionModel::kContention, 5'000},
    // Latency longer than many tasks: grants, releases and news of lost
    // executors cross in flight.
    {"contention_slow_network", sim::ExecutionModel::kContention, 200'000},
};

// The conformance suite's failures: machine 0 down from 1 s to 4 s, machine
// 1 (when there is one) from 2 s to 5 s.
std::vector<sim::MachineFailure> SuiteFailures(const Workload& w) {
  std::vector<sim::MachineFailure> f = {{MachineId(0), Sec(1), Sec(4)}};
  if (w.cluster.size() > 1) f.push_back({MachineId(1), Sec(2), Sec(5)});
  return f;
}

// RandomFailures: each machine fails with probability 1/2 at a time drawn in
// [0, 8) s and comes back 0.5 to 6 s later; drawn from `seed`, so the same
// seed gives the same schedule. Every failure recovers: a task that fits
// only a machine that never returns cannot finish under any policy.
std::vector<sim::MachineFailure> RandomFailures(const Workload& w, uint64_t seed) {
  Rng rng = Rng(seed).Fork(0xfa11);
  std::vector<sim::MachineFailure> f;
  for (uint32_t m = 0; m < w.cluster.size(); ++m) {
    if (rng.Uniform() < 0.5) continue;
    const double at = 8 * rng.Uniform();
    f.push_back({MachineId(m), Sec(at), Sec(at + 0.5 + 5.5 * rng.Uniform())});
  }
  return f;
}

// RunExecutor simulates `seed` under executor with `params`; ok when every
// job ended, the schedule passed the checker and no decision was refused.
absl::Status RunExecutor(const Workload& w, uint64_t seed, const Variant& v, std::vector<sim::MachineFailure> failures,
                 double task_failure_prob, const std::vector<std::string>& params = {}) {
  sim::SimulationRequest request{.policy = "executor"};
  request.params = params;
  request.options.seed = seed;
  // A policy spinning at one instant is caught in well under a second
  // instead of after the default 20 million events.
  request.options.stall_limit = 1'000'000;
  request.options.model = v.model;
  request.options.latency_us = v.latency_us;
  request.options.failures = std::move(failures);
  request.options.task_failure_prob = task_failure_prob;
  request.options.max_attempts = 10;
  auto result = sim::Simulate(w, request);
  if (!result.ok()) return result.status();
  if (!result->status.ok()) return result->status;
  if (result->stats.jobs_succeeded + result->stats.jobs_failed != w.jobs.size()) {
    return absl::InternalError("the run reported success but not every job ended");
  }
  if (result->stats.refused_decisions != 0) {
    return absl::InternalError(fmt::format("{} decisions refused", result->stats.refused_decisions));
  }
  return absl::OkStatus();
}

TEST(ExecutorFailureTest, Seed114FinishesAfterItsMachinesFail) {
  // The reported repro: `weft sim -w <seed 114> -p executor --fail a@1:4
  // --fail b@2:5`. Machines a (8 cores, 8 GB), b (8 cores, 2 GB), c0 and
  // c1 (1 core, 8 GB). j0 takes all four machines at 0 (8-core executors cut
  // to each); a and b fail under it, the other jobs then take a and b as
  // they return, and j0, whose last stage needs 8 cores, is left with the
  // two 1-core executors on c0 and c1, which j1's first stage (8 GB and 150
  // MB/s of disk: only c0 or c1) waits for. Every job then waited on another.
  const Workload w = SeedWorkload(114);
  ASSERT_EQ(w.cluster.size(), 4u);
  ASSERT_EQ(w.jobs.size(), 5u);
  const absl::Status s = RunExecutor(w, 1, kVariants[0], SuiteFailures(w), 0);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ExecutorFailureTest, RandomSeedsFinishUnderMachineAndTaskFailures) {
  // 150 seeds (114, 119, 126, 147 and 157 deadlocked before the idle rule) in
  // both models, with and without latency, with 5% of attempts failing, under
  // the suite's failures and under a random failure schedule per seed.
  for (uint64_t seed = 100; seed < 250; ++seed) {
    const Workload w = SeedWorkload(seed);
    for (const Variant& v : kVariants) {
      for (const bool random_failures : {false, true}) {
        const absl::Status s =
            RunExecutor(w, seed, v, random_failures ? RandomFailures(w, seed) : SuiteFailures(w), 0.05);
        ASSERT_TRUE(s.ok()) << "seed " << seed << " " << v.name << (random_failures ? " random failures" : "")
                            << ": " << s;
      }
    }
  }
}

TEST(ExecutorFailureTest, ZeroIdleTimeoutGivesBackAtOnceWithoutSpinning) {
  // idle_timeout=0: a job gives back idle executors the moment it finds it
  // cannot use them. With a slow network it may still hold an executor
  // whose machine has failed when it hears of it only later; that one must
  // not count as held, or the zero-delay timer re-arms forever at one
  // instant (seeds 26 and 28 did so while the rule was being written).
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const Workload w = SeedWorkload(seed);
    for (const bool random_failures : {false, true}) {
      const absl::Status s = RunExecutor(w, seed, kVariants[4], random_failures ? RandomFailures(w, seed) : SuiteFailures(w),
                                         0, {"idle_timeout=0"});
      ASSERT_TRUE(s.ok()) << "seed " << seed << (random_failures ? " random failures" : "") << ": " << s;
    }
  }
}

// For reporting: how many of N seeds finish, per variant and failure
// schedule (no task failures, so that only machine failures are tested).
// WEFT_EXECUTOR_SWEEP_PARAMS="k=v k=v" passes policy parameters.
TEST(ExecutorFailureTest, DISABLED_Sweep) {
  const char* env = std::getenv("WEFT_EXECUTOR_SWEEP_SEEDS");
  const uint64_t seeds = env != nullptr ? std::strtoull(env, nullptr, 10) : 1000;
  std::vector<std::string> params;
  if (const char* p = std::getenv("WEFT_EXECUTOR_SWEEP_PARAMS"); p != nullptr) {
    std::istringstream in(p);
    for (std::string kv; in >> kv;) params.push_back(kv);
  }
  for (const Variant& v : kVariants) {
    for (const bool random_failures : {false, true}) {
      uint64_t ok = 0;
      std::string failed;
      for (uint64_t seed = 0; seed < seeds; ++seed) {
        const Workload w = SeedWorkload(seed);
        const absl::Status s =
            RunExecutor(w, seed, v, random_failures ? RandomFailures(w, seed) : SuiteFailures(w), 0, params);
        if (s.ok()) {
          ++ok;
        } else {
          failed += fmt::format(" {}", seed);
        }
      }
      fmt::print("executor {} {} failures: {}/{} seeds finish{}{}\n", v.name, random_failures ? "random" : "suite", ok,
                 seeds, failed.empty() ? "" : "; not:", failed);
    }
  }
}

}  // namespace
}  // namespace weft
