// File: tests/policy/cp_test.cc
//
// The cp baseline on a hand-computed two-machine schedule where serving the
// longest remaining critical path first beats breadth-first order, and with
// the schedule checker attached throughout.
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy::testing {
namespace {

// Two machines with one core each. "warm" holds both for [0, 1]; "dag"
// arrives at 0.5, so all its root stages are queued when the machines free:
//   wide:  2 tasks of 2 s (no children)          remaining cp 2
//   long0: 1 task of 1 s, then long1: 1 task 3 s  remaining cp 4, 3
// Both roots have depth 0 and wide is listed first.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [
    {"name": "warm", "stages": [{"name": "w", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "dag", "arrival": 0.5, "stages": [
      {"name": "wide", "tasks": 2, "duration": 2, "demand": {"cpu": 1}},
      {"name": "long0", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "long1", "tasks": 1, "duration": 3, "demand": {"cpu": 1}, "after": ["long0"]}]}]})";

TEST(CpPolicyTest, LongestRemainingPathFirstBeatsBreadthFirst) {
  // cp: at 1 long0 (cp 4) and wide0 start. At 2 long0 ends and releases
  // long1 (cp 3) at the same instant: the round sees long1 and the waiting
  // wide1 (cp 2) together, and long1 takes the freed machine, [2, 5]; wide1
  // runs [3, 5] when wide0 ends.
  const auto cp = RunPolicy(kWorkload, "cp");
  ASSERT_TRUE(cp.status.ok()) << cp.status;
  EXPECT_EQ(cp.Task("dag", 0, 1).start_us, Sec(1));
  EXPECT_EQ(cp.Task("dag", 0, 0).start_us, Sec(1));
  EXPECT_EQ(cp.Task("dag", 0, 2).start_us, Sec(2));
  EXPECT_EQ(cp.Task("dag", 1, 0).start_us, Sec(3));
  EXPECT_EQ(cp.Makespan(), Sec(5));

  // bfs: both wide tasks at 1 (depth tie, listed first), long0 [3, 4],
  // long1 [4, 7].
  const auto bfs = RunPolicy(kWorkload, "bfs");
  ASSERT_TRUE(bfs.status.ok()) << bfs.status;
  EXPECT_EQ(bfs.Task("dag", 0, 0).start_us, Sec(1));
  EXPECT_EQ(bfs.Task("dag", 1, 0).start_us, Sec(1));
  EXPECT_EQ(bfs.Task("dag", 0, 1).start_us, Sec(3));
  EXPECT_EQ(bfs.Task("dag", 0, 2).start_us, Sec(4));
  EXPECT_EQ(bfs.Makespan(), Sec(7));
}

TEST(CpPolicyTest, EstimateNoiseStillGivesAValidSchedule) {
  const auto cp = RunPolicy(kWorkload, "cp", {"estimate_noise=0.5"});
  ASSERT_TRUE(cp.status.ok()) << cp.status;
  EXPECT_EQ(cp.attempts.size(), 6u);
}

}  // namespace
}  // namespace weft::policy::testing
