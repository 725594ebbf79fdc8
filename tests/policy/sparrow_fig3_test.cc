// File: tests/policy/sparrow_fig3_test.cc
//
// Sparrow's Fig. 3 scaled down (the full-size run is in
// docs/reproductions/sparrow.md): single-slot nodes, exponential 100 ms
// tasks, 0.5 ms one-way latency (1 ms RTT), Poisson arrivals at 90% load. The
// variants must rank random > per-task > batch > late binding in median
// response time, and late binding must come within 25% of the ideal (the
// median over jobs of their longest task: no queueing at all).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sparrow_test_util.h"
#include "trace/sparrow_workload.h"

namespace weft::policy::testing {
namespace {

TEST(SparrowFig3Test, VariantsRankAsInThePaperAtNinetyPercentLoad) {
  SparrowWorkloadSpec spec;
  spec.machines = 1000;
  spec.tasks_per_job = 100;
  spec.jobs = 600;
  spec.load = 0.9;
  spec.seed = 1;
  const Workload w = BuildSparrowWorkload(spec);
  const double ideal = IdealMedianResponseUs(w);
  sim::SimOptions o;
  o.latency_us = 500;
  std::vector<double> median;
  for (const char* policy : {"sparrow-random", "sparrow-per-task", "sparrow-batch", "sparrow"}) {
    WorkloadRun r;
    RunOnWorkload(w, policy, {}, o, r);
    ASSERT_TRUE(r.status.ok()) << policy << ": " << r.status;
    median.push_back(MedianResponseUs(r.jobs));
    RecordProperty(policy, std::to_string(median.back() / 1000));
  }
  EXPECT_GT(median[0], median[1]);
  EXPECT_GT(median[1], median[2]);
  EXPECT_GT(median[2], median[3]);
  EXPECT_LT(median[3], 1.25 * ideal) << "ideal " << ideal / 1000 << " ms";
  std::printf("median ms: random %.1f per-task %.1f batch %.1f sparrow %.1f ideal %.1f\n", median[0] / 1000,
              median[1] / 1000, median[2] / 1000, median[3] / 1000, ideal / 1000);
}

}  // namespace
}  // namespace weft::policy::testing
