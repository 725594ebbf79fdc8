// File: tests/policy/dagps/space_test.cc
//
// The resource-time space and the two placement routines of DAGPS
// (001_a7e14c78d79bdb00.txt, section 4.2, Fig. 7 PlaceTasksF / PlaceTasksB),
// on hand-checked spaces: earliest and latest fits around boxes already
// placed, capacities per resource, several machines, negative time; a forward
// and a backward pass over a small chain with the times worked out by hand.
#include <vector>

#include "gtest/gtest.h"
#include "policy/dagps/placement.h"
#include "policy/dagps/space.h"
#include "test_inputs.h"

namespace weft::policy::dagps::testing {
namespace {

TEST(ResourceTimeSpaceTest, EarliestFitSkipsFullIntervalsPerResource) {
  ResourceTimeSpace space({Units(2, 2)});
  space.Place(0, S(0), S(10), Units(2, 1));   // cpu full on [0, 10)
  space.Place(0, S(10), S(10), Units(1, 2));  // mem full on [10, 20)
  // cpu 1 for 5 s: [0,10) has no cpu, [10,20) no mem left: 20.
  auto slot = space.EarliestFit(Units(1, 0.5), S(5), S(0));
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(slot->start, S(20));
  // A task needing only cpu 1 and no memory fits at 10.
  slot = space.EarliestFit(Units(1, 0), S(5), S(0));
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(slot->start, S(10));
  // Not before 12: still inside [10, 20) -> 12.
  EXPECT_EQ(space.EarliestFit(Units(1, 0), S(5), S(12))->start, S(12));
  // Too big for the machine: no slot at all.
  EXPECT_FALSE(space.EarliestFit(Units(3, 0), S(1), S(0)).has_value());
  EXPECT_EQ(space.makespan(), S(20));
  EXPECT_TRUE(space.WithinCapacity());
}

TEST(ResourceTimeSpaceTest, LatestFitGoesBackwardsIntoNegativeTime) {
  ResourceTimeSpace space({Units(2, 2)});
  space.Place(0, S(0), S(10), Units(2, 0));
  space.Place(0, S(10), S(10), Units(1, 0));
  // cpu 2 for 5 s ending by 20: [10,20) has 1 cpu used, [0,10) 2: must end
  // by 0, so it starts at -5.
  auto slot = space.LatestFit(Units(2, 0), S(5), S(20));
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(slot->start, S(-5));
  // cpu 1 fits beside the second box: ends at 20, starts at 15.
  EXPECT_EQ(space.LatestFit(Units(1, 0), S(5), S(20))->start, S(15));
  // 12 s of cpu 1 ending by 20 would overlap [0,10): ends by 20 is
  // impossible (8 s free after 10), so it ends at 0.
  EXPECT_EQ(space.LatestFit(Units(1, 0), S(12), S(20))->start, S(-12));
}

TEST(ResourceTimeSpaceTest, PicksTheMachineWithTheEarliestSlot) {
  ResourceTimeSpace space({Units(1, 1), Units(1, 1), Units(2, 2)});
  space.Place(0, S(0), S(10), Units(1, 1));
  space.Place(1, S(0), S(4), Units(1, 1));
  space.Place(2, S(0), S(6), Units(2, 0));
  // cpu 1 for 1 s: m0 at 10, m1 at 4, m2 at 6 -> m1.
  const auto slot = space.EarliestFit(Units(1, 0), S(1), S(0));
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(slot->machine, 1u);
  EXPECT_EQ(slot->start, S(4));
  // Only m2 is big enough for cpu 2: at 6.
  EXPECT_EQ(space.EarliestFit(Units(2, 0), S(1), S(0))->machine, 2u);
  EXPECT_EQ(space.UsageAt(2, S(5)), Units(2, 0));
  EXPECT_EQ(space.UsageAt(2, S(6)), Units(0, 0));
}

// A chain a -> b on one machine (cpu 2): a = two tasks of 4 s and 2 s with
// cpu 1 each, b = one task of 3 s with cpu 2.
PlanInput Chain() {
  PlanInput in;
  in.machines = {Units(2, 1)};
  AddStage(in, 2, 4, Units(1, 0));
  in.stages[0].durations[1] = S(2);
  AddStage(in, 1, 3, Units(2, 0));
  in.AddEdge(0, 1);
  in.ComputeTopoOrder();
  return in;
}

TEST(PlacementTest, ForwardPlacesParentsFirstLongestFirst) {
  const PlanInput in = Chain();
  PlanState state(in);
  const std::vector<uint8_t> all = {1, 1};
  ASSERT_TRUE(PlaceSubset(in, all, Direction::kForward, state).ok());
  // a0 [0,4), a1 [0,2) side by side; b after the last parent: [4,7).
  EXPECT_EQ(state.start[0], S(0));
  EXPECT_EQ(state.start[1], S(0));
  EXPECT_EQ(state.start[2], S(4));
  EXPECT_EQ(state.makespan(), S(7));
  EXPECT_TRUE(CheckPlan(in, state).ok());
}

TEST(PlacementTest, BackwardPlacesChildrenFirstEndingAtTheirStart) {
  const PlanInput in = Chain();
  PlanState state(in);
  const std::vector<uint8_t> all = {1, 1};
  ASSERT_TRUE(PlaceSubset(in, all, Direction::kBackward, state).ok());
  // b [-3,0) on the empty space's right edge 0; a0 ends by -3: [-7,-3);
  // a1 beside it: [-5,-3).
  EXPECT_EQ(state.start[2], S(-3));
  EXPECT_EQ(state.start[0], S(-7));
  EXPECT_EQ(state.start[1], S(-5));
  EXPECT_EQ(state.makespan(), S(7));
  EXPECT_TRUE(CheckPlan(in, state).ok());
}

TEST(PlacementTest, ForwardPassRespectsParentsPlacedEarlierInOtherSubsets) {
  const PlanInput in = Chain();
  PlanState state(in);
  // Place only b first (as T), then a backwards (as P): a must end before b.
  ASSERT_TRUE(PlaceSubset(in, std::vector<uint8_t>{0, 1}, Direction::kForward, state).ok());
  EXPECT_EQ(state.start[2], S(0));
  ASSERT_TRUE(PlaceSubset(in, std::vector<uint8_t>{1, 0}, Direction::kBackward, state).ok());
  EXPECT_EQ(state.start[0], S(-4));
  EXPECT_EQ(state.start[1], S(-2));
  EXPECT_TRUE(CheckPlan(in, state).ok());
}

TEST(PlacementTest, PlaceBestKeepsTheMoreCompactDirection) {
  // Two independent stages on cpu 2: x = 1 task of 10 s cpu 1; y = 4 tasks
  // of 5 s cpu 1: 30 cpu-seconds on 2 cpus, and both directions reach 15 s.
  PlanInput in;
  in.machines = {Units(2, 1)};
  AddStage(in, 1, 10, Units(1, 0));
  AddStage(in, 4, 5, Units(1, 0));
  in.ComputeTopoOrder();
  PlanState state(in);
  ASSERT_TRUE(PlaceBest(in, std::vector<uint8_t>{1, 1}, state).ok());
  EXPECT_EQ(state.makespan(), S(15));
  EXPECT_EQ(state.placements, 10u);  // both passes' work is counted
}

}  // namespace
}  // namespace weft::policy::dagps::testing
