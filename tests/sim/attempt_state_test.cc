// File: tests/sim/attempt_state_test.cc
//
// The attempt lifecycle's table (sim/attempt_state.h), checked against a
// list written here independently: every legal move is accepted, every other
// refused, so removing or adding a move to the engine's table fails a test;
// and a move outside the table stops the engine (Attempt::MoveTo aborts).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sim/attempt_state.h"
#include "sim/attempt_table.h"

namespace weft::sim {
namespace {

using S = AttemptState;

std::vector<S> AllStates() {
  std::vector<S> all;
  for (int i = 0; i < kNumAttemptStates; ++i) all.push_back(static_cast<S>(i));
  return all;
}

// The lifecycle as the engine's files drive it: attempts.cc, locality.cc,
// shuffle.cc, profiled_phases.cc (and every live attempt's end: kFree).
std::set<std::pair<S, S>> ExpectedMoves() {
  std::set<std::pair<S, S>> moves = {
      {S::kFree, S::kLaunching},                       // a launch
      {S::kLaunching, S::kArrived},                    // it reaches its machine
      {S::kArrived, S::kReadingInput},                 // a remote read
      {S::kArrived, S::kShuffling},                    // its shuffle at once
      {S::kArrived, S::kPhaseReady},                   // its first phase, to the agent
      {S::kArrived, S::kParked},                       // its first phase does not fit
      {S::kArrived, S::kRunning},                      // its work at once
      {S::kReadingInput, S::kShuffling},
      {S::kReadingInput, S::kPhaseReady},
      {S::kReadingInput, S::kParked},
      {S::kReadingInput, S::kRunning},
      {S::kShuffling, S::kPhaseReady},                 // the shuffle ends, the work begins
      {S::kShuffling, S::kParked},
      {S::kShuffling, S::kRunning},
      {S::kShuffling, S::kShufflingPhaseReady},        // a first "shuffle" phase alongside
      {S::kShuffling, S::kShufflingParked},
      {S::kShuffling, S::kShufflingRunning},
      {S::kPhaseReady, S::kRunning},                   // the agent starts it
      {S::kPhaseReady, S::kParked},
      {S::kParked, S::kRunning},                       // room freed
      {S::kParked, S::kParked},                        // still no room
      {S::kRunning, S::kRunning},                      // the next phase
      {S::kRunning, S::kParked},
      {S::kRunning, S::kPhaseReady},
      {S::kShufflingPhaseReady, S::kShufflingRunning},
      {S::kShufflingPhaseReady, S::kShufflingParked},
      {S::kShufflingPhaseReady, S::kPhaseReady},       // the shuffle ended first
      {S::kShufflingParked, S::kShufflingRunning},
      {S::kShufflingParked, S::kShufflingParked},
      {S::kShufflingParked, S::kParked},
      {S::kShufflingRunning, S::kPhaseWaitsShuffle},   // the phase's work is done first
      {S::kShufflingRunning, S::kRunning},
      {S::kPhaseWaitsShuffle, S::kRunning},            // the shuffle ends: the next phase
      {S::kPhaseWaitsShuffle, S::kParked},
      {S::kPhaseWaitsShuffle, S::kPhaseReady},
  };
  for (S s : AllStates()) {
    if (s != S::kFree) moves.insert({s, S::kFree});
  }
  return moves;
}

TEST(AttemptLifecycleTest, EveryLegalMoveIsAcceptedAndEveryOtherRefused) {
  const std::set<std::pair<S, S>> expected = ExpectedMoves();
  int legal = 0;
  for (S from : AllStates()) {
    for (S to : AllStates()) {
      const bool want = expected.contains({from, to});
      EXPECT_EQ(AttemptLifecycle::CanMove(from, to), want)
          << AttemptLifecycle::Name(from) << " -> " << AttemptLifecycle::Name(to);
      legal += want;
    }
  }
  EXPECT_EQ(legal, 35 + kNumAttemptStates - 1);
}

TEST(AttemptLifecycleTest, AFreeSlotOnlyTakesALaunchAndNothingComesBackToLaunching) {
  for (S to : AllStates()) EXPECT_EQ(AttemptLifecycle::CanMove(S::kFree, to), to == S::kLaunching);
  for (S from : AllStates()) EXPECT_FALSE(AttemptLifecycle::CanMove(from, S::kLaunching) && from != S::kFree);
}

TEST(AttemptLifecycleTest, StatesHaveDistinctNames) {
  std::set<std::string> names;
  for (S s : AllStates()) names.insert(std::string(AttemptLifecycle::Name(s)));
  EXPECT_EQ(names.size(), static_cast<size_t>(kNumAttemptStates));
}

TEST(AttemptLifecycleTest, ShuffleAlongsideStatesAreTheShufflingTwinsOfThePlainOnes) {
  for (bool alongside : {false, true}) {
    EXPECT_EQ(AttemptLifecycle::Shuffling(AttemptLifecycle::RunningState(alongside)), alongside);
    EXPECT_EQ(AttemptLifecycle::Shuffling(AttemptLifecycle::ParkedState(alongside)), alongside);
    EXPECT_EQ(AttemptLifecycle::Shuffling(AttemptLifecycle::PhaseReadyState(alongside)), alongside);
    EXPECT_TRUE(AttemptLifecycle::Running(AttemptLifecycle::RunningState(alongside)));
    EXPECT_TRUE(AttemptLifecycle::Parked(AttemptLifecycle::ParkedState(alongside)));
    EXPECT_TRUE(AttemptLifecycle::PhaseReady(AttemptLifecycle::PhaseReadyState(alongside)));
  }
}

TEST(AttemptLifecycleTest, TheTableFollowsAnAttemptThroughItsSlot) {
  AttemptTable t;
  t.SetMachines(1);
  const uint32_t slot = t.New(MachineId(0));
  EXPECT_EQ(t[slot].state(), S::kLaunching);
  EXPECT_FALSE(t[slot].arrived());
  t[slot].MoveTo(S::kArrived);
  EXPECT_TRUE(t[slot].arrived());
  t[slot].MoveTo(S::kRunning);
  t.Free(slot);
  EXPECT_EQ(t[slot].state(), S::kFree);
}

TEST(AttemptLifecycleDeathTest, AnIllegalMoveStopsTheEngine) {
  Attempt a;
  a.MoveTo(S::kLaunching);
  EXPECT_DEATH(a.MoveTo(S::kRunning), "may not move from 'launching' to 'running'");
  Attempt freed;
  EXPECT_DEATH(freed.MoveTo(S::kFree), "may not move from 'free' to 'free'");  // an attempt ended twice
}

}  // namespace
}  // namespace weft::sim
