// Tests for the delay policy (policy/baseline/delay): hand-computed waits on
// a three-machine cluster (m0 and m1 share rack 0, m2 is alone in rack 1),
// and locality on the bundled default workload.
#include <string>

#include "fair_share_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "trace/random_workload.h"
#include "sim/simulation.h"
#include "trace/workload_reader.h"

namespace weft::policy {
namespace {

using testing::RunPolicy;
using testing::Sec;

// "busy" (user a) arrives at 0 with `busy_tasks` 10-second tasks, which take
// m0 (and m1, ...) in order; "local" (user b) arrives at 1 with one
// 1-second task whose preferences are `prefs` (a JSON list of names).
std::string Workload(int busy_tasks, std::string_view prefs) {
  return fmt::format(R"({{
    "weft": 1,
    "cluster": {{"machines": [{{"name": "m", "count": 3, "rack_size": 2, "capacity": {{"cpu": 1, "mem": 4}}}}]}},
    "jobs": [
      {{"name": "busy", "user": "a", "stages": [
        {{"name": "s", "tasks": {}, "duration": 10, "demand": {{"cpu": 1, "mem": 1}}}}]}},
      {{"name": "local", "user": "b", "arrival": 1, "stages": [
        {{"name": "s", "tasks": 1, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}, "locality": [{}]}}]}}
    ]}})",
                     busy_tasks, prefs);
}

TEST(DelayPolicyTest, RunsRackLocalAfterNodeWait) {
  // m0 is busy until 10; m1 (same rack) and m2 are free. The task waits
  // node_wait = 3 s from its first skip at 1, then runs rack-local on m1 at
  // 4, although no machine frees up then (a timer brings it back).
  const auto run = RunPolicy(Workload(1, R"(["m0"])"), "delay");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  const AttemptRecord& t = run.Task("local");
  EXPECT_EQ(t.start_us, Sec(4));
  EXPECT_EQ(t.machine, MachineId(1));
  EXPECT_EQ(t.locality, Locality::kRack);
}

TEST(DelayPolicyTest, WaitsForItsNodeWhenNodeWaitIsLong) {
  const auto run = RunPolicy(Workload(1, R"(["m0"])"), "delay", {"node_wait=1000"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  const AttemptRecord& t = run.Task("local");
  EXPECT_EQ(t.start_us, Sec(10));  // when busy's task leaves m0
  EXPECT_EQ(t.machine, MachineId(0));
  EXPECT_EQ(t.locality, Locality::kNode);
}

TEST(DelayPolicyTest, RunsAnywhereAfterRackWait) {
  // m0 and m1 (its whole rack) are busy until 10: rack-local is allowed at
  // 4 but impossible, and at 1 + 3 + 2 = 6 the task may go anywhere: m2.
  const auto run = RunPolicy(Workload(2, R"(["m0"])"), "delay", {"rack_wait=2"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  const AttemptRecord& t = run.Task("local");
  EXPECT_EQ(t.start_us, Sec(6));
  EXPECT_EQ(t.machine, MachineId(2));
  EXPECT_EQ(t.locality, Locality::kRemote);
}

TEST(DelayPolicyTest, TaskWithoutPreferencesRunsAtOnce) {
  const auto run = RunPolicy(Workload(1, "[]"), "delay");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(1));
  EXPECT_EQ(run.Task("local").machine, MachineId(1));
}

TEST(DelayPolicyTest, FairPlacesTheSameTaskAtOnceAnywhere) {
  // The contrast: without delay scheduling the task runs at 1 on m1.
  const auto run = RunPolicy(Workload(1, R"(["m0"])"), "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(1));
  EXPECT_EQ(run.Task("local").locality, Locality::kRack);
}

TEST(DelayPolicyTest, SkippedJobLeavesTheMachineToOthers) {
  // "local" waits for m0; "other" (user c, no preferences) arrives at 2 and
  // takes m1 at once; at 4 "local" may run rack-local but m1 is taken, and
  // rack_wait later (7) it runs on m2.
  std::string doc = Workload(1, R"(["m0"])");
  doc.insert(doc.rfind(']'), R"(, {"name": "other", "user": "c", "arrival": 2, "stages": [
      {"name": "s", "tasks": 1, "duration": 10, "demand": {"cpu": 1, "mem": 1}}]})");
  const auto run = RunPolicy(doc, "delay");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("other").start_us, Sec(2));
  EXPECT_EQ(run.Task("other").machine, MachineId(1));
  EXPECT_EQ(run.Task("local").start_us, Sec(7));
  EXPECT_EQ(run.Task("local").machine, MachineId(2));
}

TEST(DelayPolicyTest, PicksNodeLocalTasksOutOfIndexOrder) {
  // Two tasks ready at 0 on an idle cluster: task 0 prefers m1, task 1
  // prefers m0. Each runs on its own preferred machine at 0.
  const auto run = RunPolicy(R"({
    "weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 2, "duration": 1, "demand": {"cpu": 1},
                                      "locality": [["m1"], ["m0"]]}]}]})",
                             "delay");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("j", 0).machine, MachineId(1));
  EXPECT_EQ(run.Task("j", 1).machine, MachineId(0));
  EXPECT_EQ(run.Task("j", 0).start_us, 0);
  EXPECT_EQ(run.Task("j", 1).start_us, 0);
}

// Regression: a job whose skipped tasks fit only one machine kept launching
// its other tasks elsewhere; each launch ended its wait, so no timer brought
// it back to that machine once it sat idle, and 5 tasks were never run.
TEST(DelayPolicyTest, SkippedTasksRunOnAnIdleMachineAfterLaunchesElsewhere) {
  auto workload = RandomWorkload(316);
  ASSERT_TRUE(workload.ok()) << StatusMessage(workload.status());
  sim::SimulationRequest request;
  request.policy = "delay";
  auto result = sim::Simulate(*workload, request);
  ASSERT_TRUE(result.ok()) << StatusMessage(result.status());
  EXPECT_TRUE(result->status.ok()) << StatusMessage(result->status);
  EXPECT_EQ(result->summary.jobs, workload->jobs.size());
}

TEST(DelayPolicyTest, RaisesNodeLocalityOnTheDefaultWorkload) {
  auto workload = ReadWorkloadFile(WEFT_SOURCE_DIR "/examples/default.json");
  ASSERT_TRUE(workload.ok()) << StatusMessage(workload.status());
  double node[2];
  const char* policies[2] = {"fair", "delay"};
  for (int i = 0; i < 2; ++i) {
    sim::SimulationRequest request;
    request.policy = policies[i];
    auto result = sim::Simulate(*workload, request);
    ASSERT_TRUE(result.ok()) << StatusMessage(result.status());
    ASSERT_TRUE(result->status.ok()) << StatusMessage(result->status);
    node[i] = result->summary.locality[static_cast<int>(Locality::kNode)];
  }
  EXPECT_GT(node[1], node[0] + 0.1) << "fair " << node[0] << ", delay " << node[1];
}

}  // namespace
}  // namespace weft::policy
