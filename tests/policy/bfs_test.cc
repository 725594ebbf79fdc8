// File: tests/policy/bfs_test.cc
//
// The bfs baseline serves shallower stages first, within a job and across
// jobs, where fifo would serve by stage index or arrival. Hand-computed
// schedules on one single-core machine, with the schedule checker attached.
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy::testing {
namespace {

// Within one job. Stage indices: c=0 (after r), r=1, s=2. r runs [0, 1];
// at 1 r's end releases c (depth 1, listed first) and s (depth 0) waits: the
// round sees both, and s0 gets the machine, [1, 2.5], then s1 [2.5, 4],
// c0 [4, 5], c1 [5, 6].
constexpr char kOneJob[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "c", "tasks": 2, "duration": 1, "demand": {"cpu": 1}, "after": ["r"]},
    {"name": "r", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
    {"name": "s", "tasks": 2, "duration": 1.5, "demand": {"cpu": 1}}]}]})";

TEST(BfsPolicyTest, ShallowerStageFirstWithinAJob) {
  const auto bfs = RunPolicy(kOneJob, "bfs");
  ASSERT_TRUE(bfs.status.ok()) << bfs.status;
  EXPECT_EQ(bfs.Task("j", 0, 1).start_us, 0);
  EXPECT_EQ(bfs.Task("j", 0, 2).start_us, Sec(1));
  EXPECT_EQ(bfs.Task("j", 1, 2).start_us, Sec(2.5));  // s1, depth 0
  EXPECT_EQ(bfs.Task("j", 0, 0).start_us, Sec(4));    // c0, depth 1
  EXPECT_EQ(bfs.Task("j", 1, 0).start_us, Sec(5));

  // fifo serves the lower stage index instead, even to c, released at 1 by
  // the end that freed the machine: c0 [1, 2], c1 [2, 3], s0 [3, 4.5], s1.
  const auto fifo = RunPolicy(kOneJob, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("j", 0, 0).start_us, Sec(1));
  EXPECT_EQ(fifo.Task("j", 1, 0).start_us, Sec(2));
  EXPECT_EQ(fifo.Task("j", 0, 2).start_us, Sec(3));
  EXPECT_EQ(fifo.Task("j", 1, 2).start_us, Sec(4.5));
}

// Across jobs. A: a0 [0, 1], then a1 (2 tasks); B arrives at 1.5 with one
// root task. At 2 a1's second task (depth 1) and b0 (depth 0) are queued.
constexpr char kTwoJobs[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [
    {"name": "A", "stages": [
      {"name": "a0", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "a1", "tasks": 2, "duration": 1, "demand": {"cpu": 1}, "after": ["a0"]}]},
    {"name": "B", "arrival": 1.5, "stages": [{"name": "b0", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(BfsPolicyTest, ShallowerStageOfALaterJobFirst) {
  const auto bfs = RunPolicy(kTwoJobs, "bfs");
  ASSERT_TRUE(bfs.status.ok()) << bfs.status;
  EXPECT_EQ(bfs.Task("A", 0, 1).start_us, Sec(1));
  EXPECT_EQ(bfs.Task("B", 0, 0).start_us, Sec(2));
  EXPECT_EQ(bfs.Task("A", 1, 1).start_us, Sec(3));

  const auto fifo = RunPolicy(kTwoJobs, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("A", 1, 1).start_us, Sec(2));
  EXPECT_EQ(fifo.Task("B", 0, 0).start_us, Sec(3));
}

TEST(BfsPolicyTest, NonClairvoyant) {
  auto built = BuildPolicy("bfs", {});
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->policy->knowledge(), Knowledge::kNonClairvoyant);
}

}  // namespace
}  // namespace weft::policy::testing
