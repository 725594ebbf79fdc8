// File: python/decision_channel.h
//
// DecisionChannel: the hand-off between an environment's engine, which runs
// on a thread of its own, and the agent, on Python's thread. Exactly one side
// runs at a time: the engine runs until its policy needs a choice (Ask),
// then sleeps until the agent answers (Answer), which wakes the engine and
// sleeps until the next question or the end of the run (Finish). So the
// whole engine runs in C++ between decisions, and the run is as
// deterministic as a plain simulation. A waiting side spins for a few
// microseconds before it sleeps on the condition variable.
// Thread-safe: one engine thread and one agent thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "python/job_order_policy.h"

namespace weft::python {

class DecisionChannel final : public JobOrderAgent {
 public:
  // Choose asks the agent across the channel (Ask).
  std::optional<uint32_t> Choose(const JobOrderObservation& /*observation*/) override { return Ask(); }

  // Engine side. Ask waits for the agent's action; nullopt once the agent
  // has abandoned the run (Abandon): the policy then stops deciding.
  std::optional<uint32_t> Ask();
  // Finish: the run is over; no Ask follows.
  void Finish();

  // Agent side. WaitForQuestion waits until the engine asks or finishes;
  // true when it asked. Answer hands the action over and waits likewise.
  bool WaitForQuestion();
  bool Answer(uint32_t action);
  // Send hands the action over without waiting (Answer is Send, then
  // WaitForQuestion); nothing if the engine is not asking.
  void Send(uint32_t action);
  // Abandon ends the run early: every Ask, now and later, returns nullopt.
  void Abandon();

 private:
  enum class Turn : uint8_t { kEngine, kAgent, kFinished };
  // Set hands the turn over; AwaitNot waits while the turn is `turn` (and
  // the run is not abandoned), spinning briefly first: the other side
  // usually answers within microseconds, and a sleep and wake-up through
  // the kernel costs more than that.
  void Set(Turn turn);
  Turn AwaitNot(Turn turn);

  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<Turn> turn_{Turn::kEngine};
  std::atomic<bool> abandoned_atomic_{false};
  uint32_t action_ = 0;
};

}  // namespace weft::python
