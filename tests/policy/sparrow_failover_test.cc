// File: tests/policy/sparrow_failover_test.cc
//
// Sparrow scheduler failover (§4.3) on the engine's scheduler failure
// injection: with 3 replicas of which two die while their jobs have work
// queued, reserved or in flight, every job of every variant still completes
// exactly once (checker attached), with and without latency, and with a
// machine failure on top.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sparrow_test_util.h"
#include "trace/sparrow_workload.h"

namespace weft::policy::testing {
namespace {

constexpr TimeUs Ms(double ms) { return static_cast<TimeUs>(ms * 1000); }

Workload Small() {
  SparrowWorkloadSpec spec;
  spec.machines = 20;
  spec.tasks_per_job = 10;
  spec.jobs = 80;
  spec.load = 0.9;
  spec.seed = 3;
  return BuildSparrowWorkload(spec);
}

TEST(SparrowFailoverTest, EveryJobCompletesWhenSchedulerReplicasDie) {
  const Workload w = Small();
  for (const char* policy : {"sparrow", "sparrow-batch", "sparrow-per-task", "sparrow-random"}) {
    for (TimeUs latency : {TimeUs{0}, Ms(0.5)}) {
      for (bool cancellation : {false, true}) {
        if (cancellation && std::string(policy) != "sparrow") continue;
        sim::SimOptions o;
        o.latency_us = latency;
        o.scheduler_failures = {{0, Ms(300)}, {2, Ms(800)}};
        o.failures = {{MachineId(3), Ms(500), Ms(900)}};
        std::vector<std::string> params = {"schedulers=3"};
        if (cancellation) params.push_back("cancellation=true");
        WorkloadRun r;
        RunOnWorkload(w, policy, params, o, r);
        ASSERT_TRUE(r.status.ok()) << policy << " latency " << latency << ": " << r.status;
        EXPECT_EQ(r.stats.jobs_succeeded, w.jobs.size()) << policy;
        // The failures hit live work: some job homed at replica 0 arrived
        // before 300 ms and still had tasks starting after it.
        bool moved = false;
        for (const AttemptRecord& a : r.attempts) {
          const uint32_t j = a.task.job.value();
          moved = moved || (j % 3 == 0 && w.jobs[j].arrival_us < Ms(300) && a.start_us > Ms(300));
        }
        EXPECT_TRUE(moved) << policy;
      }
    }
  }
}

}  // namespace
}  // namespace weft::policy::testing
