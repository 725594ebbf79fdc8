// AttemptLifecycle's names and its refusal of an illegal move. The move is
// an engine bug, not bad input: nothing the engine does after it could be
// trusted, so it stops at once, naming both states.
#include "sim/attempt_state.h"

#include <cstdio>
#include <cstdlib>

namespace weft::sim {

std::string_view AttemptLifecycle::Name(AttemptState s) {
  switch (s) {
    case AttemptState::kFree: return "free";
    case AttemptState::kLaunching: return "launching";
    case AttemptState::kArrived: return "arrived";
    case AttemptState::kReadingInput: return "reading input";
    case AttemptState::kShuffling: return "shuffling";
    case AttemptState::kPhaseReady: return "phase ready";
    case AttemptState::kParked: return "parked";
    case AttemptState::kRunning: return "running";
    case AttemptState::kShufflingPhaseReady: return "shuffling, phase ready";
    case AttemptState::kShufflingParked: return "shuffling, parked";
    case AttemptState::kShufflingRunning: return "shuffling, running";
    case AttemptState::kPhaseWaitsShuffle: return "phase waits for the shuffle";
  }
  return "unknown";
}

void AttemptLifecycle::IllegalMove(AttemptState from, AttemptState to) {
  const std::string_view f = Name(from);
  const std::string_view t = Name(to);
  std::fprintf(stderr, "internal error: an attempt may not move from '%.*s' to '%.*s'\n", static_cast<int>(f.size()),
               f.data(), static_cast<int>(t.size()), t.data());
  std::abort();
}

void AttemptLifecycle::IllegalEvent(AttemptState state, std::string_view event) {
  const std::string_view s = Name(state);
  std::fprintf(stderr, "internal error: an attempt that is '%.*s' cannot take '%.*s'\n", static_cast<int>(s.size()),
               s.data(), static_cast<int>(event.size()), event.data());
  std::abort();
}

}  // namespace weft::sim
