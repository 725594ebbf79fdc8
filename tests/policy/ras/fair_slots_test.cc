// Tests for fair-slots (policy/baseline/fair_slots): slots fixed whatever
// tasks use (so it overbooks a machine), fair sharing of slots between
// users' pools, and separate reduce slots. Hand-computed schedules on one
// machine under the fixed model, where tasks overbooked on a core share it.
#include <string>

#include "fair_share_test_util.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

using testing::RunPolicy;
using testing::Sec;

// One machine with one core; ja (user a) and jb (user b, arriving at
// `b_arrival`), each `tasks` 1-core 1-second map tasks.
std::string TwoUsers(int tasks, double b_arrival) {
  return fmt::format(R"({{
    "weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 1, "mem": 4}}}}]}},
    "jobs": [
      {{"name": "ja", "user": "a", "stages": [
        {{"name": "map", "tasks": {}, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}},
      {{"name": "jb", "user": "b", "arrival": {}, "stages": [
        {{"name": "map", "tasks": {}, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}}
    ]}})",
                     tasks, b_arrival, tasks);
}

TEST(FairSlotsPolicyTest, FillsEverySlotWhateverTheTasksUse) {
  // Three 1-core tasks at once on one core: slots ignore resources, so the
  // three share the core (a third each) and each wave takes 3 s.
  const auto run = RunPolicy(TwoUsers(6, 100), "fair-slots", {"map_slots=3"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("a", Sec(0.5)), 3);
  EXPECT_EQ(run.Running("a", Sec(2.5)), 3);
  EXPECT_EQ(run.Running("a", Sec(3.5)), 3);
  EXPECT_EQ(run.Task("ja", 5).end_us, Sec(6));
}

TEST(FairSlotsPolicyTest, UsersShareSlotsEvenlyAsTasksEnd) {
  // ja holds both slots from 0 (its two tasks share the core and end at 2);
  // jb arrives at 0.5 and gets the first freed slot at 2: from then on one
  // slot each.
  const auto run = RunPolicy(TwoUsers(6, 0.5), "fair-slots", {"map_slots=2"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("a", Sec(0.75)), 2);
  EXPECT_EQ(run.Running("a", Sec(1.5)), 2);
  EXPECT_EQ(run.FirstStart("jb"), Sec(2));
  for (double t : {2.5, 3.5, 4.5}) {
    EXPECT_EQ(run.Running("a", Sec(t)), 1) << "t=" << t;
    EXPECT_EQ(run.Running("b", Sec(t)), 1) << "t=" << t;
  }
}

TEST(FairSlotsPolicyTest, ReducersUseTheirOwnSlots) {
  // 2 maps then 3 reducers with one reduce slot: the reducers run one at a
  // time (ends at 2, 3, 4) though map slots are free.
  const auto run = RunPolicy(R"({
    "weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "tasks": 2, "duration": 1, "demand": {"cpu": 1}},
      {"name": "reduce", "tasks": 3, "duration": 1, "demand": {"cpu": 1}, "after": ["map"]}]}]})",
                             "fair-slots", {"map_slots=4", "reduce_slots=1"});
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Task("j", 0, 0).end_us, Sec(1));
  EXPECT_EQ(run.Task("j", 0, 1).end_us, Sec(2));
  EXPECT_EQ(run.Task("j", 1, 1).end_us, Sec(3));
  EXPECT_EQ(run.Task("j", 2, 1).end_us, Sec(4));
}

}  // namespace
}  // namespace weft::policy
