// File: tests/sim/event_queue_test.cc
//
// EventQueue: events come out in (time, sequence) order, ties in insertion
// order, and zero-delay events (kept in a FIFO beside the heap) interleave
// with heap events exactly as (time, sequence) order demands. The last test
// compares a long random mix of pushes and pops with a reference ordering.
#include "sim/event_queue.h"

#include <set>
#include <utility>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"

namespace weft::sim {
namespace {

Event At(TimeUs t, uint32_t id) { return Event{.time = t, .type = EventType::kDeliver, .a = id}; }

std::vector<uint32_t> Drain(EventQueue& q) {
  std::vector<uint32_t> ids;
  Event e;
  while (q.Pop(e)) ids.push_back(e.a);
  return ids;
}

TEST(EventQueueTest, PopsInTimeOrder) {
  EventQueue q;
  q.Push(At(50, 0));
  q.Push(At(30, 1));
  q.Push(At(10, 2));
  q.Push(At(40, 3));
  q.Push(At(20, 4));
  EXPECT_EQ(Drain(q), (std::vector<uint32_t>{2, 4, 1, 3, 0}));
  EXPECT_EQ(q.now(), 50);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueTest, TiesComeOutInInsertionOrder) {
  EventQueue q;
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < 100; ++i) {
    q.Push(At(i % 2 == 0 ? 7 : 3, i));
  }
  for (uint32_t i = 1; i < 100; i += 2) expected.push_back(i);
  for (uint32_t i = 0; i < 100; i += 2) expected.push_back(i);
  EXPECT_EQ(Drain(q), expected);
}

TEST(EventQueueTest, SequenceNumbersFollowInsertion) {
  EventQueue q;
  q.Push(At(5, 0));
  q.Push(At(0, 1));
  q.Push(At(5, 2));
  EXPECT_EQ(q.pushed(), 3u);
  Event e;
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 1u);
  EXPECT_EQ(e.seq, 1u);
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.seq, 0u);
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.seq, 2u);
}

TEST(EventQueueTest, ZeroDelayEventsRunAfterEarlierScheduledEventsOfTheSameInstant) {
  EventQueue q;
  q.Push(At(10, 0));  // heap, seq 0
  q.Push(At(10, 1));  // heap, seq 1
  q.Push(At(20, 2));  // heap, seq 2
  Event e;
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 0u);
  EXPECT_EQ(q.now(), 10);
  // Scheduled "now" while event 1 (also due at 10, scheduled earlier) waits:
  // 1 must still come first, then these in the order they were pushed.
  q.Push(At(10, 3));
  q.Push(At(4, 4));  // in the past: runs now, after 3
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 1u);
  q.Push(At(10, 5));  // pushed while draining: after 3 and 4
  q.Push(At(15, 6));  // before 2
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 3u);
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 4u);
  EXPECT_EQ(e.time, 10);  // clamped to now
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 5u);
  EXPECT_EQ(q.now(), 10);
  EXPECT_EQ(Drain(q), (std::vector<uint32_t>{6, 2}));
  EXPECT_EQ(q.now(), 20);
}

TEST(EventQueueTest, EmptyQueueKeepsItsClock) {
  EventQueue q;
  Event e;
  EXPECT_FALSE(q.Pop(e));
  q.Push(At(42, 0));
  ASSERT_TRUE(q.Pop(e));
  EXPECT_FALSE(q.Pop(e));
  EXPECT_EQ(q.now(), 42);
  EXPECT_TRUE(q.empty());
}

// A long random mix of pushes (some due now, some in the past, many ties,
// many exactly `lane` after now) and pops, checked against a reference that
// orders by (time, seq) with the same clamping rule.
void CheckRandomMixAgainstReference(TimeUs lane) {
  Rng rng(2024);
  EventQueue q;
  q.SetLaneDelay(lane);
  std::set<std::pair<TimeUs, uint64_t>> reference;  // (effective time, seq)
  uint64_t seq = 0;
  TimeUs now = 0;
  uint64_t popped = 0;
  for (int step = 0; step < 200'000; ++step) {
    if (rng.Bernoulli(0.55) || reference.empty()) {
      TimeUs t = now;
      const uint64_t kind = rng.UniformInt(5);
      if (kind == 1) t = now + static_cast<TimeUs>(rng.UniformInt(5));  // ties in the near future
      if (kind == 2) t = now + static_cast<TimeUs>(rng.UniformInt(1000));
      if (kind == 3) t = now - static_cast<TimeUs>(rng.UniformInt(3));  // in the past: clamped
      if (kind == 4) t = now + 3;  // the lane's delay when it is on
      const uint32_t id = static_cast<uint32_t>(seq);
      q.Push(At(t, id));
      reference.emplace(std::max(t, now), seq++);
    } else {
      Event e;
      ASSERT_TRUE(q.Pop(e));
      const auto expected = *reference.begin();
      reference.erase(reference.begin());
      ASSERT_EQ(e.time, expected.first) << "at pop " << popped;
      ASSERT_EQ(e.seq, expected.second) << "at pop " << popped;
      ASSERT_EQ(e.a, static_cast<uint32_t>(expected.second));
      ASSERT_EQ(q.now(), e.time);
      now = e.time;
      ++popped;
    }
  }
  EXPECT_GT(popped, 50'000u);
}

TEST(EventQueueTest, MatchesReferenceOrderOnRandomMix) { CheckRandomMixAgainstReference(0); }

TEST(EventQueueTest, LaneKeepsReferenceOrderOnRandomMix) { CheckRandomMixAgainstReference(3); }

// Lane events interleave with heap events of the same instant by sequence,
// and come before zero-delay events pushed at that instant.
TEST(EventQueueTest, LaneEventsInterleaveWithHeapEventsBySequence) {
  EventQueue q;
  q.SetLaneDelay(5);
  q.Push(At(5, 0));  // lane, seq 0
  q.Push(At(7, 1));  // heap
  q.Push(At(5, 2));  // lane
  Event e;
  ASSERT_TRUE(q.Pop(e));
  EXPECT_EQ(e.a, 0u);
  q.Push(At(5, 3));   // now: after 2
  q.Push(At(10, 4));  // lane (5 after now), after 1
  q.Push(At(6, 5));   // heap, before 1
  EXPECT_EQ(Drain(q), (std::vector<uint32_t>{2, 3, 5, 1, 4}));
}

// The real runtime's calls (PopDue, NextTime, AdvanceTo) see lane events too.
TEST(EventQueueTest, LiveCallsSeeLaneEvents) {
  EventQueue q;
  q.SetLaneDelay(5);
  q.Push(At(7, 0));  // heap
  q.Push(At(5, 1));  // lane
  EXPECT_EQ(q.NextTime(), 5);
  Event e;
  EXPECT_FALSE(q.PopDue(4, e));
  q.AdvanceTo(6);  // would skip the lane event due at 5: refused
  EXPECT_EQ(q.now(), 0);
  ASSERT_TRUE(q.PopDue(5, e));
  EXPECT_EQ(e.a, 1u);
  EXPECT_EQ(q.NextTime(), 7);
}

}  // namespace
}  // namespace weft::sim
