// File: tests/policy/ready_pool_test.cc
//
// ReadyPool: ranges stay sorted, disjoint and merged whatever order tasks
// arrive and leave in (retries come back out of order; delay scheduling
// removes tasks from the middle of ranges), counts follow, and groups are
// ordered by their key.
#include "policy/common/ready_pool.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace weft::policy {
namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

const GroupId kG{JobId(3), 1};

TaskRange R(uint32_t begin, uint32_t end) { return TaskRange{kG.job, kG.stage, begin, end}; }
TaskRef T(uint32_t index) { return TaskRef{kG.job, kG.stage, index}; }
OrderKey K(int64_t first) { return {first, 0, 0, 0}; }

Ranges RangesOf(const ReadyPool& pool, const GroupId& g = kG) {
  const auto* ranges = pool.ranges(g);
  return ranges == nullptr ? Ranges{} : Ranges(ranges->begin(), ranges->end());
}

TEST(ReadyPoolTest, AddMergesWithThePreviousAndTheFollowingRange) {
  ReadyPool pool;
  pool.Add(R(0, 2), K(0));
  pool.Add(R(4, 6), K(0));
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 2}, {4, 6}}));
  pool.Add(R(2, 4), K(0));  // touches both sides: one range
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 6}}));
  EXPECT_EQ(pool.count(kG), 6u);
}

TEST(ReadyPoolTest, AddOutOfOrderKeepsRangesSortedAndMerged) {
  ReadyPool pool;
  pool.Add(R(8, 9), K(0));
  pool.Add(R(0, 1), K(0));
  pool.Add(R(4, 5), K(0));
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 1}, {4, 5}, {8, 9}}));
  pool.Add(R(5, 6), K(0));  // touches only the range before it
  pool.Add(R(3, 4), K(0));  // touches only the range after it
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 1}, {3, 6}, {8, 9}}));
  pool.Add(R(6, 8), K(0));
  pool.Add(R(1, 3), K(0));
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 9}}));
  EXPECT_EQ(pool.count(kG), 9u);
  EXPECT_EQ(pool.size(), 9u);
}

TEST(ReadyPoolTest, RemoveFindsTasksInAFragmentedGroup) {
  ReadyPool pool;
  pool.Add(R(0, 10), K(0));
  // Out of order, from the middle, as delay scheduling does.
  for (uint32_t i : {6u, 2u, 8u, 4u}) EXPECT_TRUE(pool.Remove(T(i)));
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}}));
  EXPECT_FALSE(pool.Remove(T(2)));   // already gone (between ranges)
  EXPECT_FALSE(pool.Remove(T(10)));  // past the last range
  EXPECT_TRUE(pool.Remove(T(5)));    // a one-task range disappears
  EXPECT_TRUE(pool.Remove(T(0)));    // the front of a range
  EXPECT_TRUE(pool.Remove(T(9)));    // the last task
  EXPECT_EQ(RangesOf(pool), (Ranges{{1, 2}, {3, 4}, {7, 8}}));
  EXPECT_EQ(pool.count(kG), 3u);
  EXPECT_EQ(pool.Front(kG), T(1));
  EXPECT_FALSE(pool.Remove(T(0)));  // before the first range
  EXPECT_FALSE(pool.Remove(TaskRef{JobId(4), 1, 1}));  // unknown group
}

TEST(ReadyPoolTest, RemovedTasksComeBackMerged) {
  ReadyPool pool;
  pool.Add(R(0, 5), K(0));
  EXPECT_TRUE(pool.Remove(T(2)));
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 2}, {3, 5}}));
  pool.Add(R(2, 3), K(0));  // a retry of task 2
  EXPECT_EQ(RangesOf(pool), (Ranges{{0, 5}}));
}

TEST(ReadyPoolTest, LastTaskErasesTheGroup) {
  ReadyPool pool;
  pool.Add(R(0, 2), K(0));
  EXPECT_TRUE(pool.Remove(T(1)));
  pool.Pop(kG);
  EXPECT_TRUE(pool.empty());
  EXPECT_EQ(pool.count(kG), 0u);
  EXPECT_EQ(pool.key(kG), nullptr);
  EXPECT_EQ(pool.ranges(kG), nullptr);
}

TEST(ReadyPoolTest, GroupsInKeyOrderAndAnExistingGroupKeepsItsKey) {
  ReadyPool pool;
  const GroupId a{JobId(0), 0}, b{JobId(1), 0};
  pool.Add(TaskRange{a.job, 0, 0, 1}, K(5));
  pool.Add(TaskRange{b.job, 0, 0, 1}, K(2));
  pool.Add(TaskRange{a.job, 0, 1, 2}, K(1));  // a keeps 5
  ASSERT_NE(pool.key(a), nullptr);
  EXPECT_EQ(*pool.key(a), K(5));
  std::vector<GroupId> order;
  for (const auto& [key, g] : pool.ordered()) order.push_back(g);
  EXPECT_EQ(order, (std::vector<GroupId>{b, a}));
  pool.Rekey(a, K(1));
  EXPECT_EQ(pool.ordered().begin()->second, a);
}

TEST(ReadyPoolTest, RemoveJobDropsOnlyThatJobsGroupsIncludingOnesThatEmptiedAndCameBack) {
  ReadyPool pool;
  const JobId a(1), b(2);
  pool.Add(TaskRange{a, 0, 0, 3}, K(1));
  pool.Add(TaskRange{a, 2, 0, 1}, K(2));
  pool.Add(TaskRange{b, 0, 0, 2}, K(0));
  pool.Pop(GroupId{a, 2});                 // a's stage 2 empties...
  pool.Add(TaskRange{a, 2, 0, 1}, K(2));   // ...and comes back (a retry)
  pool.RemoveJob(a, 3);
  EXPECT_EQ(pool.count(GroupId{a, 0}), 0u);
  EXPECT_EQ(pool.count(GroupId{a, 2}), 0u);
  EXPECT_EQ(pool.count(GroupId{b, 0}), 2u);
  EXPECT_EQ(pool.size(), 2u);
  ASSERT_EQ(pool.ordered().size(), 1u);
  EXPECT_EQ(pool.ordered().begin()->second, (GroupId{b, 0}));
  pool.RemoveJob(a, 3);  // nothing left of it: a no-op
  pool.Add(TaskRange{a, 0, 5, 6}, K(1));  // its bookkeeping is clean: it can come back
  pool.RemoveJob(b, 1);
  pool.RemoveJob(a, 3);
  EXPECT_TRUE(pool.empty());
  EXPECT_EQ(pool.size(), 0u);
}

TEST(ReadyPoolTest, OrderKeyHasRoomForARankBeforeTheFifoKey) {
  // Four fields: a rank, then FifoKey's three, compared lexicographically.
  const OrderKey ranked_low = {-5, 0, 100, 7};
  const OrderKey ranked_high = {-9, 0, 900, 1};
  EXPECT_LT(ranked_high, ranked_low);
  EXPECT_LT((OrderKey{1, 2, 3, 4}), (OrderKey{1, 2, 3, 5}));
}

}  // namespace
}  // namespace weft::policy
