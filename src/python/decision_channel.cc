#include "python/decision_channel.h"

#include <chrono>
#include <thread>

namespace weft::python {
namespace {

// How long a waiting side spins before it sleeps: about a step's length.
constexpr auto kSpin = std::chrono::microseconds(50);

}  // namespace

void DecisionChannel::Set(Turn turn) {
  {
    std::lock_guard lock(mu_);  // a sleeper checks the turn under the lock: no lost wake-up
    turn_.store(turn, std::memory_order_release);
  }
  cv_.notify_all();
}

DecisionChannel::Turn DecisionChannel::AwaitNot(Turn turn) {
  auto done = [&] { return turn_.load(std::memory_order_acquire) != turn || abandoned_atomic_.load(std::memory_order_acquire); };
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, done);
      break;
    }
    std::this_thread::yield();
  }
  return turn_.load(std::memory_order_acquire);
}

std::optional<uint32_t> DecisionChannel::Ask() {
  if (abandoned_atomic_.load(std::memory_order_acquire)) return std::nullopt;
  Set(Turn::kAgent);
  AwaitNot(Turn::kAgent);
  if (abandoned_atomic_.load(std::memory_order_acquire)) return std::nullopt;
  return action_;
}

void DecisionChannel::Finish() { Set(Turn::kFinished); }

bool DecisionChannel::WaitForQuestion() { return AwaitNot(Turn::kEngine) == Turn::kAgent; }

void DecisionChannel::Send(uint32_t action) {
  if (turn_.load(std::memory_order_acquire) != Turn::kAgent) return;
  action_ = action;  // published by Set's release
  Set(Turn::kEngine);
}

bool DecisionChannel::Answer(uint32_t action) {
  Send(action);
  return WaitForQuestion();
}

void DecisionChannel::Abandon() {
  {
    std::lock_guard lock(mu_);
    abandoned_atomic_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

}  // namespace weft::python
