// File: tests/sim/task_overrides_test.cc
//
// Per-task demand and usage overrides (docs/workload-format.md, "demands",
// "usages"): each attempt reserves and uses its own task's, the schedule
// checker judges capacity by what each attempt reserved, and the TWork bound
// counts each task's own demand.
#include "gtest/gtest.h"
#include "metrics/lower_bounds.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

// One 4-core machine; stage "a": tasks of 1 and 3 cores (the stage's demand
// is their maximum, 3), 2 s each.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 2, "demands": [{"cpu": 1}, {"cpu": 3}],
     "usages": [{"cpu": 0.5}, {"cpu": 3}]}]}]})";

TEST(TaskOverridesTest, EachAttemptReservesAndUsesItsOwnTasksDemand) {
  const Workload w = Parse(kWorkload);
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  // 1 + 3 cores fit the machine together (the stage's 3 + 3 would not).
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, 0);
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).start_us, 0);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).demand, Resources::FromUnits({1, 0, 0, 0}).value());
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).demand, Resources::FromUnits({3, 0, 0, 0}).value());
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).usage, Resources::FromUnits({0.5, 0, 0, 0}).value());
  EXPECT_EQ(r.rec.Job(0).end_us, Sec(2));
}

TEST(TaskOverridesTest, TWorkCountsEachTasksOwnDemand) {
  const Workload w = Parse(kWorkload);
  const JobBounds b = ComputeJobBounds(w.jobs[0], BoundCapacity::Of(w.cluster));
  // (1 + 3) cores x 2 s over 4 cores = 2 s (the stage's maximum would say 3 s).
  EXPECT_EQ(b.twork_us, Sec(2));
}

}  // namespace
}  // namespace weft::sim::scripted
