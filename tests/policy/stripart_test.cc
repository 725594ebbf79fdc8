// File: tests/policy/stripart_test.cc
//
// The stripart baseline: its levels on a hand-computed DAG (cut at the
// critical path's midpoint, in-order numbering), the level gate holding an
// independent stage back so that StripPart cannot overlap it with a later
// level (the drawback DAGPS section 8.3 names), and the packing order inside
// a level (longest stage first versus stage order). Schedule checker attached.
#include <memory>
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"
#include "policy/baseline/stripart.h"
#include "policy/common/level_gate.h"

namespace weft::policy::testing {
namespace {

// a (2 s) -> b (1 s); c (1 s) independent; one machine of 4 cpu.
// ASAP intervals: a [0, 2), b [2, 3), c [0, 1); midpoint 1.5 cuts a only:
// c (before) is level 0, a level 1, b (after) level 2.
constexpr char kThreeLevels[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 1, "duration": 2, "demand": {"cpu": 1}},
    {"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]},
    {"name": "c", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(StripPartPolicyTest, LevelsSplitAtTheCriticalPathMidpoint) {
  auto w = ParseWorkload(kThreeLevels);
  ASSERT_TRUE(w.ok());
  JobProgress progress(w->jobs[0]);
  const KnowledgeOptions options;
  const JobView view(JobId(0), w->jobs[0], progress, Knowledge::kClairvoyant, options);
  const std::vector<TimeUs> durations = {Sec(2), Sec(1), Sec(1)};
  EXPECT_EQ(baseline::StripPartLevels(view, durations), std::vector<uint32_t>({1, 2, 0}));
}

TEST(StripPartPolicyTest, LevelsRunOneAfterAnother) {
  // c [0, 1), then a [1, 3), then b [3, 4): 4 s where fifo overlaps c with a
  // and ends at 3.
  const auto strip = RunPolicy(kThreeLevels, "stripart");
  ASSERT_TRUE(strip.status.ok()) << strip.status;
  EXPECT_EQ(strip.Task("j", 0, 2).start_us, 0);
  EXPECT_EQ(strip.Task("j", 0, 0).start_us, Sec(1));
  EXPECT_EQ(strip.Task("j", 0, 1).start_us, Sec(3));
  EXPECT_EQ(strip.Makespan(), Sec(4));
  const auto fifo = RunPolicy(kThreeLevels, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Makespan(), Sec(3));
}

// "warm" holds the machine (4 cpu) for [0, 1]; the dag's three roots (x 3 s,
// y 4 s, z 5 s, 2 cpu each, all containing the midpoint 2.5: one level) are
// queued when it frees.
constexpr char kOneLevel[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "warm", "stages": [{"name": "w", "tasks": 1, "duration": 1, "demand": {"cpu": 4}}]},
    {"name": "dag", "arrival": 0.5, "stages": [
      {"name": "x", "tasks": 1, "duration": 3, "demand": {"cpu": 2}},
      {"name": "y", "tasks": 1, "duration": 4, "demand": {"cpu": 2}},
      {"name": "z", "tasks": 1, "duration": 5, "demand": {"cpu": 2}}]}]})";

TEST(StripPartPolicyTest, PacksTheLongestStagesOfALevelFirst) {
  // Longest first: z and y at 1, x when y ends at 5: the dag ends at 8.
  const auto longest = RunPolicy(kOneLevel, "stripart");
  ASSERT_TRUE(longest.status.ok()) << longest.status;
  EXPECT_EQ(longest.Task("dag", 0, 2).start_us, Sec(1));
  EXPECT_EQ(longest.Task("dag", 0, 1).start_us, Sec(1));
  EXPECT_EQ(longest.Task("dag", 0, 0).start_us, Sec(5));
  EXPECT_EQ(longest.Makespan(), Sec(8));
  // Stage order: x and y at 1, z when x ends at 4: 9.
  const auto fifo = RunPolicy(kOneLevel, "stripart", {"pack=fifo"});
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("dag", 0, 2).start_us, Sec(4));
  EXPECT_EQ(fifo.Makespan(), Sec(9));
}

TEST(LevelGateTest, ParksLaterLevelsUntilEarlierOnesFinish) {
  auto w = ParseWorkload(kThreeLevels);
  ASSERT_TRUE(w.ok());
  JobProgress progress(w->jobs[0]);
  const KnowledgeOptions options;
  const JobView view(JobId(0), w->jobs[0], progress, Knowledge::kClairvoyant, options);
  LevelGate gate;
  gate.AddJob(view, {1, 2, 0});
  EXPECT_TRUE(gate.Admit(TaskRange{JobId(0), 2, 0, 1}));   // c, level 0
  EXPECT_FALSE(gate.Admit(TaskRange{JobId(0), 0, 0, 1}));  // a waits
  const std::vector<TaskRange> released = gate.Finished(TaskRef{JobId(0), 2, 0});
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].stage, 0u);
  EXPECT_EQ(gate.OpenLevel(JobId(0)), 1u);
  EXPECT_TRUE(gate.Finished(TaskRef{JobId(0), 0, 0}).empty());  // b was never parked
  EXPECT_EQ(gate.OpenLevel(JobId(0)), 2u);
  EXPECT_TRUE(gate.Admit(TaskRange{JobId(0), 1, 0, 1}));
}

}  // namespace
}  // namespace weft::policy::testing
