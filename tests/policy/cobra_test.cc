// Tests for COBRA (policy/cobra) and its baselines: the paper's Fig. 2
// worked examples with its numbers, Af and the utilization meter from
// Algorithm 1's text, the fair division by desire, Pdelay's per-task waits,
// container reuse, and argument checking. Theorem 5 is cobra_theorem5_test.cc.
//
// Fig. 2's DAG (the text gives only Stage 0 and names J1.4, J1.5; how it was
// reconstructed is in docs/reproductions/cobra.md): Stage 0, four 0.5-unit
// 5 s tasks; Stage 1 (after 0), two 0.5-unit 3 s tasks (J1.4, J1.5: they
// pack into one container); Stage 2 (after 1), one 0.5-unit 3 s task. A
// 2-unit environment: one machine of 2 cores and 4 GB, containers of 1 core
// and 2 GB (one unit), a 1 s container response time.
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fair_share_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "policy/cobra/af.h"
#include "policy/cobra/scheduler.h"

namespace weft::policy {
namespace {

using testing::RunPolicy;
using testing::Sec;

std::string Fig2Job(const std::string& name, double arrival) {
  return fmt::format(R"({{"name": "{}", "arrival": {}, "stages": [
      {{"name": "s0", "tasks": 4, "duration": 5, "demand": {{"cpu": 0.5, "mem": 1}}}},
      {{"name": "s1", "tasks": 2, "duration": 3, "demand": {{"cpu": 0.5, "mem": 1}}, "after": ["s0"]}},
      {{"name": "s2", "tasks": 1, "duration": 3, "demand": {{"cpu": 0.5, "mem": 1}}, "after": ["s1"]}}]}})",
                     name, arrival);
}

std::string TwoUnits(const std::string& jobs) {
  return R"({"weft": 1, "cluster": {"machines": [{"name": "m", "count": 1, "capacity": {"cpu": 2, "mem": 4}}]},
    "jobs": [)" + jobs + "]}";
}

double AverageResponse(const testing::Run& run) {
  // Jobs end with their last task; response = end - arrival.
  std::vector<TimeUs> end(run.workload.jobs.size(), 0);
  for (const AttemptRecord& a : run.attempts) end[a.task.job.value()] = std::max(end[a.task.job.value()], a.end_us);
  double sum = 0;
  for (size_t j = 0; j < end.size(); ++j) sum += static_cast<double>(end[j] - run.workload.jobs[j].arrival_us);
  return sum / static_cast<double>(end.size()) / 1e6;
}

TEST(CobraFig2Test, SingleJobDefaultTetrisCobraFinishAt20_14_12) {
  const std::string w = TwoUnits(Fig2Job("J1", 0));
  // Default: one task per 1-unit container, each container asked for anew
  // (1 s) and returned when its task ends.
  const auto def = RunPolicy(w, "cobra-default");
  ASSERT_TRUE(def.status.ok()) << StatusMessage(def.status);
  EXPECT_EQ(def.Makespan(), Sec(20));
  // Tetris's variable-capacity containers: one container of exactly the
  // task's size per task, still asked for anew (cobra-default with 0.5-unit
  // containers; weft's own tetris has no container response time).
  const auto tetris = RunPolicy(w, "cobra-default", {"container_cpu=0.5", "container_mem=1"});
  ASSERT_TRUE(tetris.status.ok()) << StatusMessage(tetris.status);
  EXPECT_EQ(tetris.Makespan(), Sec(14));
  // COBRA: the job holds both containers (the example's job has the whole
  // environment: initial desire 2) and reuses them, two tasks in each.
  const auto cobra = RunPolicy(w, "cobra", {"initial_desire=2"});
  ASSERT_TRUE(cobra.status.ok()) << StatusMessage(cobra.status);
  EXPECT_EQ(cobra.Makespan(), Sec(12));
  EXPECT_EQ(cobra.Task("J1", 0, 1).start_us, Sec(6));  // Stage 1 starts with no new request
}

TEST(CobraFig2Test, TwoJobsDynamicBeatsStatic) {
  // J2 arrives at 5. Static (spark-static: 2 containers held to the end):
  // J1 12, J2 waits for J1's containers (12) and ends at 23: average 15.0
  // (the paper: 16). COBRA: the fair division gives J2 one container at its
  // arrival; J1 gives one back when its Stage 0 tasks end at 6 (its two
  // Stage 1 tasks pack into the other) and J2 runs from 6: J1 12, J2 17,
  // average 14.5 (the paper's dynamic: 15). Ours are lower by the grant
  // that in the paper takes 1 s after the room frees; the ordering and the
  // hand-over at 6 are the paper's.
  const std::string w = TwoUnits(Fig2Job("J1", 0) + "," + Fig2Job("J2", 5));
  const auto stat = RunPolicy(w, "spark-static");
  ASSERT_TRUE(stat.status.ok()) << StatusMessage(stat.status);
  EXPECT_DOUBLE_EQ(AverageResponse(stat), 15.0);
  const auto cobra = RunPolicy(w, "cobra", {"initial_desire=2"});
  ASSERT_TRUE(cobra.status.ok()) << StatusMessage(cobra.status);
  EXPECT_DOUBLE_EQ(AverageResponse(cobra), 14.5);
  EXPECT_EQ(cobra.FirstStart("J2"), Sec(6));
  EXPECT_LT(AverageResponse(cobra), AverageResponse(stat));
}

TEST(CobraAfTest, FollowsAlgorithm1) {
  const cobra::AfParams p{.rho = 1.5, .delta = 0.7};
  // Inefficient: u < δ and no waiting task: d / ρ (whatever the allocation).
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(3, 3, 0.5, false, p), 2);
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(3, 1, 0.69, false, p), 2);
  // A waiting task makes a low-utilization period efficient.
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(3, 3, 0.1, true, p), 4.5);
  // Efficient and deprived (a < d): unchanged.
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(3, 2, 0.9, false, p), 3);
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(2.25, 2, 0.7, false, p), 2.25);
  // Efficient and satisfied: d · ρ (u = δ is efficient).
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(2, 2, 0.7, false, p), 3);
  EXPECT_DOUBLE_EQ(cobra::AfNextDesire(1, 1, 1.0, false, {.rho = 3, .delta = 0.5}), 3);
}

TEST(CobraAfTest, UtilizationIsTheMaxOverResourcesOfTimeAverages) {
  cobra::UtilizationMeter m;
  const Resources size = *Resources::FromUnits({2, 4, 0, 0});
  m.Restart(0);
  // 0-2 s: 1 core and 1 GB used of 2 cores, 4 GB; 2-4 s: 2 cores, 1 GB.
  m.Sample(0, *Resources::FromUnits({1, 1, 0, 0}), size);
  m.Sample(Sec(2), *Resources::FromUnits({2, 1, 0, 0}), size);
  // cpu: (1·2 + 2·2) / (2·4) = 0.75; mem: 4 / 16 = 0.25.
  EXPECT_DOUBLE_EQ(m.Utilization(Sec(4)), 0.75);
  m.Restart(Sec(4));
  m.Sample(Sec(5), Resources(), Resources());  // everything released at 5
  EXPECT_DOUBLE_EQ(m.Utilization(Sec(6)), 1.0);  // 4-5 s at 2 of 2 cores; nothing held after
  cobra::UtilizationMeter empty;
  EXPECT_DOUBLE_EQ(empty.Utilization(Sec(1)), 0);
}

TEST(CobraSchedulerTest, FairDivisionCapsAtDesireAndGivesLeftoversToTheDeprived) {
  using cobra::FairDivision;
  EXPECT_EQ(FairDivision({1, 10, 10}, 9), (std::vector<int64_t>{1, 4, 4}));
  EXPECT_EQ(FairDivision({1, 10, 10}, 10), (std::vector<int64_t>{1, 5, 4}));  // remainder to the earlier
  EXPECT_EQ(FairDivision({2, 3}, 100), (std::vector<int64_t>{2, 3}));          // nobody above its desire
  EXPECT_EQ(FairDivision({5, 5}, 0), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(FairDivision({}, 4), std::vector<int64_t>{});
}

// ContainerSlots keeps each machine's count and the total with every machine
// up: after every random failure or recovery its count must equal the sum
// over the up machines recomputed from their capacities.
TEST(CobraSchedulerTest, ContainerSlotsEqualASumOverTheUpMachines) {
  Cluster cluster;
  const std::vector<Resources> caps = {*Resources::FromUnits({16, 64, 0, 0}), *Resources::FromUnits({32, 96, 0, 0}),
                                       *Resources::FromUnits({0.5, 1, 0, 0}), *Resources::FromUnits({8, 4, 0, 0})};
  for (int m = 0; m < 40; ++m) cluster.AddMachine(fmt::format("m{}", m), RackId(m / 10), caps[m % caps.size()]);
  ClusterState state(cluster);
  cobra::ContainerSlots slots(*Resources::FromUnits({1, 2, 0, 0}), 1);
  // 16-core 64 GB: 16; 32-core 96 GB: 32; smaller than a container: 1; 8 cores 4 GB: 2 (memory).
  EXPECT_EQ(slots.Count(state), 10 * (16 + 32 + 1 + 2));
  cobra::ContainerSlots oversubscribed(*Resources::FromUnits({1, 2, 0, 0}), 2);
  EXPECT_EQ(oversubscribed.OnMachine(caps[0]), 32);  // 32 vcores, 64 GB
  std::mt19937 rng(7);
  for (int step = 0; step < 500; ++step) {
    const MachineId m(static_cast<uint32_t>(std::uniform_int_distribution<int>(0, 39)(rng)));
    state.SetUp(m, !state.up(m));
    if (step % 50 == 0) {
      for (uint32_t i = 0; i < cluster.size(); ++i) state.SetUp(MachineId(i), true);  // all up again
    }
    int64_t want = 0;
    for (uint32_t i = 0; i < cluster.size(); ++i) {
      if (state.up(MachineId(i))) want += slots.OnMachine(cluster.machine(MachineId(i)).capacity);
    }
    ASSERT_EQ(slots.Count(state), want) << "step " << step;
  }
}

// One job of one stage on a cluster of two racks: m0, m1 in rack 0, m2 in
// rack 1; a "busy" job holds m0's only container first.
std::string LocalityWorkload(const std::string& prefs) {
  return fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "count": 3, "rack_size": 2, "capacity": {{"cpu": 1, "mem": 2}}}}]}},
    "jobs": [
      {{"name": "busy", "stages": [{{"name": "s", "tasks": 1, "duration": 30, "demand": {{"cpu": 1, "mem": 2}}}}]}},
      {{"name": "local", "arrival": 0.5, "stages": [
        {{"name": "s", "tasks": 1, "duration": 10, "demand": {{"cpu": 0.2, "mem": 0.2}}, "locality": [{}]}}]}}]}})",
                     prefs);
}

TEST(CobraPdelayTest, RackLocalAfterTauTimesPAndAnywhereAfterTwice) {
  // busy takes m0 (first fit) at 1. local (p = 10 s) becomes ready at 0.5
  // and gets a container at 1.5 on m1 (rack-local to m0): with τ = 0.1 it
  // may run there from 0.5 + 1 = 1.5.
  auto run = RunPolicy(LocalityWorkload(R"(["m0"])"), "cobra", {"tau=0.1"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(1.5));
  EXPECT_EQ(run.Task("local").machine, MachineId(1));
  // τ = 0.5: rack-local only from 5.5; the container waits idle until then.
  run = RunPolicy(LocalityWorkload(R"(["m0"])"), "cobra", {"tau=0.5"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(5.5));
  EXPECT_EQ(run.Task("local").locality, Locality::kRack);
}

TEST(CobraPdelayTest, NodeLocalAtOnceAndRemoteOnlyAfterTwoTauP) {
  // Prefers m2 (rack 1): the job's container comes on m1 (m0 is busy's), so
  // the task is remote there: it waits 2τ·p = 4 s from 0.5.
  auto run = RunPolicy(LocalityWorkload(R"(["m2"])"), "cobra", {"tau=0.2"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(4.5));
  EXPECT_EQ(run.Task("local").locality, Locality::kRemote);
  // Prefers m1, where the container comes: node-local at once.
  run = RunPolicy(LocalityWorkload(R"(["m1"])"), "cobra", {"tau=0.2"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("local").start_us, Sec(1.5));
  EXPECT_EQ(run.Task("local").locality, Locality::kNode);
}

TEST(CobraTest, ReusesOneContainerForSeveralTasksAtOnce) {
  // Desire 1: one 1-core container on a 2-core machine holds four
  // 0.25-core tasks at once, then the next four in the same container with
  // no new request (start at 1 + 2 = 3, not 4).
  const std::string w = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 1, "capacity": {"cpu": 2, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "s", "tasks": 8, "duration": 2, "demand": {"cpu": 0.25, "mem": 0.25}}]}]})";
  const auto run = RunPolicy(w, "cobra", {"period=100"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(run.Task("j", i).start_us, Sec(1)) << i;
    EXPECT_TRUE(run.Task("j", i).in_container);
  }
  for (uint32_t i = 4; i < 8; ++i) EXPECT_EQ(run.Task("j", i).start_us, Sec(3)) << i;
}

// The default container (1 core, 2 GB) is larger than a machine in
// normalized units (Google's traces: 1 x 1). Each such machine holds one
// container cut down to it, and the jobs finish; before, no container was
// ever granted and the run stopped making progress.
TEST(CobraTest, AContainerLargerThanEveryMachineIsCutDownToIt) {
  const std::string w = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 1}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "s", "tasks": 4, "duration": 2, "demand": {"cpu": 0.25, "mem": 0.25}}]}]})";
  for (const char* name : {"cobra", "cobra-default", "spark-dynamic", "spark-static"}) {
    const auto run = RunPolicy(w, name, {"response_time=0"});
    ASSERT_TRUE(run.status.ok()) << name << ": " << StatusMessage(run.status);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(run.Task("j", i).in_container) << name << " task " << i;
  }
  // cobra's one container (desire 1) holds the four tasks at once.
  const auto run = RunPolicy(w, "cobra", {"response_time=0", "period=100"});
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(run.Task("j", i).start_us, 0) << i;
}

// With no container response time, a job the scheduler had capped (a
// kAllocation below what it held) and whose allocation then rose kept its
// old cap: it gave back each container granted for the new allocation, which
// the scheduler granted again at the same instant, forever (the run stopped
// with "no progress" at 86.7 s of examples/tpch-small.json under cobra). A
// job told a cap now hears every later change.
TEST(CobraTest, ARaisedAllocationReachesAJobThatWasCapped) {
  std::ifstream in(std::string(WEFT_SOURCE_DIR) + "/examples/tpch-small.json");
  const std::string w((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(w.empty());
  for (const char* name : {"cobra", "cobra-default"}) {
    const auto run = RunPolicy(w, name, {"response_time=0"});
    ASSERT_TRUE(run.status.ok()) << name << ": " << StatusMessage(run.status);  // the checker's verdict too
    EXPECT_EQ(run.attempts.size(), 805u) << name;  // every task once: nothing failed or was killed
  }
}

TEST(CobraTest, RejectsBadParameters) {
  for (const char* bad : {"rho=1", "delta=0", "delta=1.5", "tau=-1", "period=-1", "initial_desire=0"}) {
    EXPECT_FALSE(BuildPolicy("cobra", {std::string(bad)}).ok()) << bad;
  }
  EXPECT_FALSE(BuildPolicy("cobra", {"period=0"}).ok());
  EXPECT_FALSE(BuildPolicy("spark-dynamic", {"initial_executors=0"}).ok());
  EXPECT_TRUE(BuildPolicy("cobra-default", {"node_wait=0", "rack_wait=0"}).ok());
}

}  // namespace
}  // namespace weft::policy
