// File: tests/policy/tetris_test.cc
//
// The tetris baseline: it packs complementary demands (a cpu-heavy and a
// memory-heavy task) on one machine where fifo lets a balanced task fragment
// it; it places new tasks where they align, finishing a job in half the time
// fifo's first fit takes; its shortest-remaining-work term favours the job
// with less work left, and follows the work as tasks finish. Hand-computed
// schedules, schedule checker attached.
#include <algorithm>
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy::testing {
namespace {

// One machine (4 cpu, 4 GB), held by "blocker" for [0, 1]. "mix" arrives at
// 0.5 with three 1 s stages queued in this order: mid (2, 2), cpu (3, 1.5)
// and mem (1, 2.5).
constexpr char kComplementary[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "blocker", "stages": [{"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]},
    {"name": "mix", "arrival": 0.5, "stages": [
      {"name": "mid", "tasks": 1, "duration": 1, "demand": {"cpu": 2, "mem": 2}},
      {"name": "cpu", "tasks": 1, "duration": 1, "demand": {"cpu": 3, "mem": 1.5}},
      {"name": "mem", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 2.5}}]}]})";

TEST(TetrisPolicyTest, PacksCpuHeavyAndMemoryHeavyTogether) {
  // At 1 the empty machine aligns best with cpu (0.75 + 0.375 > mid's 1.0 >
  // mem's 0.875); what is left, (1, 2.5), fits only mem. mid runs after.
  const auto tetris = RunPolicy(kComplementary, "tetris");
  ASSERT_TRUE(tetris.status.ok()) << tetris.status;
  EXPECT_EQ(tetris.Task("mix", 0, 1).start_us, Sec(1));
  EXPECT_EQ(tetris.Task("mix", 0, 2).start_us, Sec(1));
  EXPECT_EQ(tetris.Task("mix", 0, 0).start_us, Sec(2));

  // fifo takes mid first; nothing else fits beside it.
  const auto fifo = RunPolicy(kComplementary, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("mix", 0, 0).start_us, Sec(1));
  EXPECT_EQ(fifo.Task("mix", 0, 1).start_us, Sec(2));
  EXPECT_EQ(fifo.Task("mix", 0, 2).start_us, Sec(2));
}

// Two machines (4 cpu, 4 GB), one job of four 2 s root stages released in
// this order: p (1, 2), q (2, 1), r (3, 2), s (2, 3).
//   fifo (first fit): p, q, r -> m0, m0, m1; that leaves (1, 1) and (1, 2),
//     so s waits until 2 and the job ends at 4.
//   tetris: p -> m0 (tie); q aligns better with idle m1 (0.75 > 0.5);
//     r fits only m0 (exactly); s fits m1 exactly: all end at 2.
constexpr char kFragments[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "p", "tasks": 1, "duration": 2, "demand": {"cpu": 1, "mem": 2}},
    {"name": "q", "tasks": 1, "duration": 2, "demand": {"cpu": 2, "mem": 1}},
    {"name": "r", "tasks": 1, "duration": 2, "demand": {"cpu": 3, "mem": 2}},
    {"name": "s", "tasks": 1, "duration": 2, "demand": {"cpu": 2, "mem": 3}}]}]})";

TEST(TetrisPolicyTest, FinishesEarlierWhereFirstFitFragments) {
  const auto fifo = RunPolicy(kFragments, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("j", 0, 1).machine, MachineId(0));
  EXPECT_EQ(fifo.Task("j", 0, 3).start_us, Sec(2));
  EXPECT_EQ(fifo.Makespan(), Sec(4));

  const auto tetris = RunPolicy(kFragments, "tetris");
  ASSERT_TRUE(tetris.status.ok()) << tetris.status;
  EXPECT_EQ(tetris.Task("j", 0, 0).machine, MachineId(0));
  EXPECT_EQ(tetris.Task("j", 0, 1).machine, MachineId(1));
  EXPECT_EQ(tetris.Task("j", 0, 2).machine, MachineId(0));
  EXPECT_EQ(tetris.Task("j", 0, 3).machine, MachineId(1));
  for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(tetris.Task("j", 0, s).start_us, 0);
  EXPECT_EQ(tetris.Makespan(), Sec(2));
}

// One machine (4, 4) held by "blocker" for [0, 1]; "big" (four full-machine
// 1 s tasks, work 4 x 2 = 8) arrives at 0.5, "small" (one such task, work 2)
// at 0.6. Both align alike (2.0); eps = 2 / 5, so big scores 2 - 3.2 and
// small 2 - 0.8: small goes first. With srpt_weight=0 fifo order breaks
// the tie and small waits for all of big.
constexpr char kShortJob[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "blocker", "stages": [{"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]},
    {"name": "big", "arrival": 0.5, "stages": [{"name": "a", "tasks": 4, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]},
    {"name": "small", "arrival": 0.6, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]}]})";

TEST(TetrisPolicyTest, ShortestRemainingWorkBreaksEqualPacking) {
  const auto srpt = RunPolicy(kShortJob, "tetris");
  ASSERT_TRUE(srpt.status.ok()) << srpt.status;
  EXPECT_EQ(srpt.Task("small").start_us, Sec(1));
  EXPECT_EQ(srpt.Task("big", 3).end_us, Sec(6));

  const auto packing_only = RunPolicy(kShortJob, "tetris", {"srpt_weight=0"});
  ASSERT_TRUE(packing_only.status.ok()) << packing_only.status;
  EXPECT_EQ(packing_only.Task("small").start_us, Sec(5));
}

// "big" (three full-machine 1 s tasks) runs from 0; "small" (two such tasks)
// arrives at 1.5. At 2 big has one unfinished task (work 2) against small's
// two (work 4), so big finishes first although it had more work when small
// arrived: the remaining work follows finished tasks.
constexpr char kShrinking[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "big", "stages": [{"name": "a", "tasks": 3, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]},
    {"name": "small", "arrival": 1.5, "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 4, "mem": 4}}]}]})";

TEST(TetrisPolicyTest, RemainingWorkShrinksAsTasksFinish) {
  const auto run = RunPolicy(kShrinking, "tetris", {"srpt_weight=5"});
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Task("big", 2).start_us, Sec(2));
  EXPECT_EQ(run.Task("small", 0).start_us, Sec(3));
  EXPECT_EQ(run.Task("small", 1).start_us, Sec(4));
}

TEST(TetrisPolicyTest, DeclaresItsParameter) {
  EXPECT_TRUE(BuildPolicy("tetris", {"srpt_weight=0.2"}).ok());
  EXPECT_FALSE(BuildPolicy("tetris", {"srpt_weight=-1"}).ok());
  EXPECT_FALSE(BuildPolicy("tetris", {"fairness=1"}).ok());
}

}  // namespace
}  // namespace weft::policy::testing
