// Tests for the fair policy (policy/baseline/fair): hand-computed schedules
// on a single machine.
#include <string>

#include "fair_share_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

using testing::RunPolicy;
using testing::Sec;

// One 4-core machine; job "ja" of user a and "jb" of user b, each with
// `tasks` 1-core 1-second tasks.
std::string TwoUsers(int a_tasks, double a_weight, int b_tasks, double b_arrival) {
  return fmt::format(R"({{
    "weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 4, "mem": 16}}}}]}},
    "jobs": [
      {{"name": "ja", "user": "a", "weight": {}, "stages": [
        {{"name": "s", "tasks": {}, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}},
      {{"name": "jb", "user": "b", "arrival": {}, "stages": [
        {{"name": "s", "tasks": {}, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}}
    ]}})",
                     a_weight, a_tasks, b_arrival, b_tasks);
}

TEST(FairPolicyTest, SimultaneousUsersSplitTheMachineTwoAndTwo) {
  // Both jobs arrive at 0: the shares are settled before anything starts,
  // so neither gets the whole machine first (fifo would give ja all 4).
  const auto run = RunPolicy(TwoUsers(8, 1, 8, 0), "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  for (double t : {0.5, 1.5, 2.5, 3.5}) {
    EXPECT_EQ(run.Running("a", Sec(t)), 2) << "t=" << t;
    EXPECT_EQ(run.Running("b", Sec(t)), 2) << "t=" << t;
  }
  EXPECT_EQ(run.Task("ja", 7).end_us, Sec(4));
  EXPECT_EQ(run.Task("jb", 7).end_us, Sec(4));
}

TEST(FairPolicyTest, LateUserConvergesToHalfAsTasksEnd) {
  // ja takes all 4 cores at 0; jb arrives at 0.5 and there is no
  // preemption, so it waits for the first ends at 1. From then on the
  // machine is split 2 + 2: ja's 8 remaining tasks and jb's 8 end at 5.
  const auto run = RunPolicy(TwoUsers(12, 1, 8, 0.5), "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("a", Sec(0.75)), 4);
  EXPECT_EQ(run.Running("b", Sec(0.75)), 0);
  EXPECT_EQ(run.FirstStart("jb"), Sec(1));
  for (double t : {1.5, 2.5, 3.5, 4.5}) {
    EXPECT_EQ(run.Running("a", Sec(t)), 2) << "t=" << t;
    EXPECT_EQ(run.Running("b", Sec(t)), 2) << "t=" << t;
  }
  EXPECT_EQ(run.Task("ja", 11).end_us, Sec(5));
  EXPECT_EQ(run.Task("jb", 7).end_us, Sec(5));
}

TEST(FairPolicyTest, JobWeightsSplitTheMachineThreeToOne) {
  // a's job weighs 3: shares are cores/3 for a and cores for b, so a holds 3
  // cores and b 1 (a 12 tasks at 3 per second, b 4 at 1 per second).
  const auto run = RunPolicy(TwoUsers(12, 3, 4, 0), "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  for (double t : {0.5, 1.5, 2.5, 3.5}) {
    EXPECT_EQ(run.Running("a", Sec(t)), 3) << "t=" << t;
    EXPECT_EQ(run.Running("b", Sec(t)), 1) << "t=" << t;
  }
  EXPECT_EQ(run.Task("ja", 11).end_us, Sec(4));
  EXPECT_EQ(run.Task("jb", 3).end_us, Sec(4));
}

TEST(FairPolicyTest, OneUsersJobsRunFifo) {
  // One user: its allotment goes to its jobs in arrival order, whole job
  // first (j2 arrives at the same instant but after j1 in the file).
  const auto run = RunPolicy(R"({
    "weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 4}}]},
    "jobs": [
      {"name": "j1", "user": "a", "stages": [{"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 1}}]},
      {"name": "j2", "user": "a", "stages": [{"name": "s", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]}
    ]})",
                             "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.FirstStart("j2"), Sec(2));
  EXPECT_EQ(run.Task("j1", 3).end_us, Sec(2));
}

TEST(FairPolicyTest, NeediestUserThatCannotFitDoesNotBlockOthers) {
  // b holds 2 cores with jb1 (until 10). At 1, a (share 0) asks for all 4
  // cores, which do not fit; b's jb2 fits in the 2 free cores and runs at
  // once (no reservation, as in Hadoop's Fair Scheduler). a runs at 10.
  const auto run = RunPolicy(R"({
    "weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 8}}]},
    "jobs": [
      {"name": "jb1", "user": "b", "stages": [{"name": "s", "tasks": 2, "duration": 10, "demand": {"cpu": 1}}]},
      {"name": "ja", "user": "a", "arrival": 1, "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 4}}]},
      {"name": "jb2", "user": "b", "arrival": 1, "stages": [{"name": "s", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]}
    ]})",
                             "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.FirstStart("jb2"), Sec(1));
  EXPECT_EQ(run.FirstStart("ja"), Sec(10));
}

}  // namespace
}  // namespace weft::policy
