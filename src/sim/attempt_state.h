// File: sim/attempt_state.h (internal to sim/)
//
// AttemptState: where an attempt is in its life, as the engine drives it
// (sim/attempts.cc, locality.cc, shuffle.cc, profiled_phases.cc), and the one
// table of the moves it may make. An attempt is launched (kLaunching),
// reaches its machine (kArrived), may read its input remotely
// (kReadingInput), may copy its parents' shuffle output (kShuffling), then
// runs its segments, the whole task or its phases one by one: each segment
// is handed to the node agent that controls phases (kPhaseReady), waits for
// room to grow its reservation (kParked) or runs (kRunning). A task whose
// first profiled phase is named "shuffle" runs that phase alongside the
// edge's shuffle: the kShuffling* states, and kPhaseWaitsShuffle once the
// phase's own work is done before the shuffle's end. Any live attempt may
// end (a kill, a failure, a lost machine, its last segment's end): kFree.
//
// AttemptLifecycle::CanMove is the table; Attempt::MoveTo
// (sim/attempt_table.h) makes every move through it, and an illegal move is
// an engine bug: it aborts with both states named, never goes on silently.
// Plain values; thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace weft::sim {

enum class AttemptState : uint8_t {
  kFree,                  // the slot holds no attempt
  kLaunching,             // launched; on its way to its machine (the launch's latency)
  kArrived,               // on its machine; the execution has it, its segments have not begun
  kReadingInput,          // reading its input from another machine (the locality cost)
  kShuffling,             // copying its parents' shuffle output; its own work waits
  kPhaseReady,            // its current phase is handed to the node agent, which starts it
  kParked,                // its current segment waits for room to grow its reservation
  kRunning,               // its current segment (the whole task, or its current phase) runs
  kShufflingPhaseReady,   // kPhaseReady, for a first "shuffle" phase while the edge's shuffle goes on
  kShufflingParked,       // kParked, likewise
  kShufflingRunning,      // kRunning, likewise
  kPhaseWaitsShuffle,     // that phase's work is done; it ends with the edge's shuffle
};

inline constexpr int kNumAttemptStates = 12;

// The table, built once at compile time from the list of moves.
namespace lifecycle_internal {
using S = AttemptState;
constexpr int Index(AttemptState s) { return static_cast<int>(s); }
struct Move {
  AttemptState from;
  AttemptState to;
};
// kMoves: every legal move but the ends (any live state -> kFree).
inline constexpr Move kMoves[] = {
    // A launch takes a slot; the launch reaches the machine.
    {S::kFree, S::kLaunching},
    {S::kLaunching, S::kArrived},
    // On its machine: a remote read first, then the shuffle, then the work.
    {S::kArrived, S::kReadingInput},
    {S::kArrived, S::kShuffling},
    {S::kArrived, S::kPhaseReady},
    {S::kArrived, S::kParked},
    {S::kArrived, S::kRunning},
    {S::kReadingInput, S::kShuffling},
    {S::kReadingInput, S::kPhaseReady},
    {S::kReadingInput, S::kParked},
    {S::kReadingInput, S::kRunning},
    // The shuffle ends and the work begins; or a first "shuffle" phase
    // begins alongside it.
    {S::kShuffling, S::kPhaseReady},
    {S::kShuffling, S::kParked},
    {S::kShuffling, S::kRunning},
    {S::kShuffling, S::kShufflingPhaseReady},
    {S::kShuffling, S::kShufflingParked},
    {S::kShuffling, S::kShufflingRunning},
    // The agent starts the phase: it runs, or waits for room.
    {S::kPhaseReady, S::kRunning},
    {S::kPhaseReady, S::kParked},
    // Room freed: it runs, or parks again (at the back).
    {S::kParked, S::kRunning},
    {S::kParked, S::kParked},
    // A segment ends: the next runs, parks or goes to the agent (the last
    // one's end is the attempt's: kFree).
    {S::kRunning, S::kRunning},
    {S::kRunning, S::kParked},
    {S::kRunning, S::kPhaseReady},
    // Alongside the shuffle: the same moves; when the shuffle ends first,
    // the phase carries on outside it.
    {S::kShufflingPhaseReady, S::kShufflingRunning},
    {S::kShufflingPhaseReady, S::kShufflingParked},
    {S::kShufflingPhaseReady, S::kPhaseReady},
    {S::kShufflingParked, S::kShufflingRunning},
    {S::kShufflingParked, S::kShufflingParked},
    {S::kShufflingParked, S::kParked},
    {S::kShufflingRunning, S::kPhaseWaitsShuffle},
    {S::kShufflingRunning, S::kRunning},
    // The shuffle ends after the phase's work: the next phase.
    {S::kPhaseWaitsShuffle, S::kRunning},
    {S::kPhaseWaitsShuffle, S::kParked},
    {S::kPhaseWaitsShuffle, S::kPhaseReady},
};
// kTable[from] has bit `to` set for each legal move.
constexpr std::array<uint16_t, kNumAttemptStates> Build() {
  std::array<uint16_t, kNumAttemptStates> table{};
  for (const Move& m : kMoves) table[Index(m.from)] |= static_cast<uint16_t>(1u << Index(m.to));
  for (int s = 0; s < kNumAttemptStates; ++s) {
    if (s != Index(S::kFree)) table[s] |= static_cast<uint16_t>(1u << Index(S::kFree));
  }
  return table;
}
inline constexpr std::array<uint16_t, kNumAttemptStates> kTable = Build();
}  // namespace lifecycle_internal

class AttemptLifecycle {
 public:
  // CanMove: `from` -> `to` is one of the lifecycle's moves.
  static constexpr bool CanMove(AttemptState from, AttemptState to) {
    return (lifecycle_internal::kTable[static_cast<int>(from)] >> static_cast<int>(to)) & 1u;
  }
  // Name: the state's name, for messages and tests ("running").
  static std::string_view Name(AttemptState s);
  // IllegalMove, IllegalEvent: an engine bug (a move not in the table, an
  // event the state cannot take), reported on stderr; they abort.
  [[noreturn]] static void IllegalMove(AttemptState from, AttemptState to);
  [[noreturn]] static void IllegalEvent(AttemptState state, std::string_view event);

  // Live: the slot holds an attempt. Shuffling: the edge's shuffle still
  // goes on (the attempt's copies, and its end, are pending). Running: a
  // segment runs. Parked: it waits for room (RetryParked retries it).
  // PhaseReady: the node agent may start its current phase (StartPhase).
  static constexpr bool Live(AttemptState s) { return s != AttemptState::kFree; }
  static constexpr bool Shuffling(AttemptState s) {
    return s == AttemptState::kShuffling || s == AttemptState::kShufflingPhaseReady ||
           s == AttemptState::kShufflingParked || s == AttemptState::kShufflingRunning ||
           s == AttemptState::kPhaseWaitsShuffle;
  }
  static constexpr bool Running(AttemptState s) {
    return s == AttemptState::kRunning || s == AttemptState::kShufflingRunning;
  }
  static constexpr bool Parked(AttemptState s) {
    return s == AttemptState::kParked || s == AttemptState::kShufflingParked;
  }
  static constexpr bool PhaseReady(AttemptState s) {
    return s == AttemptState::kPhaseReady || s == AttemptState::kShufflingPhaseReady;
  }
  // Segment states: where the attempt goes to run, park or wait for the
  // agent, alongside the edge's shuffle or not.
  static constexpr AttemptState RunningState(bool alongside_shuffle) {
    return alongside_shuffle ? AttemptState::kShufflingRunning : AttemptState::kRunning;
  }
  static constexpr AttemptState ParkedState(bool alongside_shuffle) {
    return alongside_shuffle ? AttemptState::kShufflingParked : AttemptState::kParked;
  }
  static constexpr AttemptState PhaseReadyState(bool alongside_shuffle) {
    return alongside_shuffle ? AttemptState::kShufflingPhaseReady : AttemptState::kPhaseReady;
  }
};

}  // namespace weft::sim
