#include "python/decision_channel.h"

namespace weft::python {

std::optional<uint32_t> DecisionChannel::Ask() {
  std::unique_lock lock(mu_);
  if (abandoned_) return std::nullopt;
  turn_ = Turn::kAgent;
  cv_.notify_all();
  cv_.wait(lock, [this] { return turn_ == Turn::kEngine || abandoned_; });
  if (abandoned_) return std::nullopt;
  return action_;
}

void DecisionChannel::Finish() {
  std::lock_guard lock(mu_);
  turn_ = Turn::kFinished;
  cv_.notify_all();
}

bool DecisionChannel::WaitForQuestion() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return turn_ != Turn::kEngine; });
  return turn_ == Turn::kAgent;
}

bool DecisionChannel::Answer(uint32_t action) {
  {
    std::lock_guard lock(mu_);
    if (turn_ != Turn::kAgent) return turn_ == Turn::kAgent;
    action_ = action;
    turn_ = Turn::kEngine;
    cv_.notify_all();
  }
  return WaitForQuestion();
}

void DecisionChannel::Abandon() {
  std::lock_guard lock(mu_);
  abandoned_ = true;
  if (turn_ == Turn::kAgent) turn_ = Turn::kEngine;
  cv_.notify_all();
}

}  // namespace weft::python
