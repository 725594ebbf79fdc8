// Tests for the delay-scheduling books (policy/common/locality_wait): the
// levels a wait unlocks over time, the timer deadlines, and that a launch
// resets the wait to the level it launched at. The policies built on them
// are tested end to end in delay_test.cc (and the cobra tests).
#include "policy/common/locality_wait.h"

#include "gtest/gtest.h"

namespace weft::policy {
namespace {

constexpr TimeUs kNode = 3'000'000;
constexpr TimeUs kRack = 2'000'000;

TEST(LocalityWaitTest, NotWaitingAllowsOnlyNodeUnlessTheWaitIsZero) {
  LocalityWait w;
  EXPECT_EQ(w.Allowed(100, kNode, kRack), LocalityLevel::kNode);
  EXPECT_EQ(w.Allowed(100, 0, kRack), LocalityLevel::kRack);
  EXPECT_EQ(w.Allowed(100, 0, 0), LocalityLevel::kAny);
}

TEST(LocalityWaitTest, UnlocksRackAfterNodeWaitAndAnyAfterBoth) {
  LocalityWait w;
  ASSERT_TRUE(w.Start(1'000'000));
  EXPECT_FALSE(w.Start(2'000'000));  // already waiting: the start stays at 1 s
  EXPECT_EQ(w.since, 1'000'000);
  EXPECT_EQ(w.Allowed(1'000'000 + kNode - 1, kNode, kRack), LocalityLevel::kNode);
  EXPECT_EQ(w.Allowed(1'000'000 + kNode, kNode, kRack), LocalityLevel::kRack);
  EXPECT_EQ(w.Allowed(1'000'000 + kNode + kRack - 1, kNode, kRack), LocalityLevel::kRack);
  EXPECT_EQ(w.Allowed(1'000'000 + kNode + kRack, kNode, kRack), LocalityLevel::kAny);
  EXPECT_EQ(w.Deadlines(kNode, kRack), (std::vector<TimeUs>{kNode, kNode + kRack}));
}

TEST(LocalityWaitTest, ARackLocalLaunchNeedsOnlyTheRackWaitNext) {
  LocalityWait w;
  w.Start(0);
  const uint32_t episode = w.episode;
  w.Launched(LocalityLevel::kRack);
  EXPECT_FALSE(w.waiting);
  EXPECT_EQ(w.Allowed(0, kNode, kRack), LocalityLevel::kRack);
  ASSERT_TRUE(w.Start(10));
  EXPECT_EQ(w.episode, episode + 1);  // timers of the old wait are stale
  EXPECT_EQ(w.Deadlines(kNode, kRack), std::vector<TimeUs>{kRack});
  EXPECT_EQ(w.Allowed(10 + kRack, kNode, kRack), LocalityLevel::kAny);
  w.Launched(LocalityLevel::kAny);
  EXPECT_TRUE(w.Deadlines(kNode, kRack).empty());
}

}  // namespace
}  // namespace weft::policy
