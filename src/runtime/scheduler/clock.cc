#include "runtime/scheduler/clock.h"

#include <chrono>

namespace weft::runtime {

TimeUs SteadyClock::NowUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t SteadyClock::UnixUs() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SteadyClock::SleepUntil(std::unique_lock<std::mutex>& lock, TimeUs deadline_us) {
  wake_.wait_until(lock, std::chrono::steady_clock::time_point(std::chrono::microseconds(deadline_us)));
}

void FakeClock::SleepUntil(std::unique_lock<std::mutex>& lock, TimeUs deadline_us) {
  if (sleeper_mu_.load() == nullptr) {
    std::lock_guard registered(registered_mu_);
    sleeper_mu_ = lock.mutex();
    registered_.notify_all();
  }
  ++sleeps_;
  sleeping_ = true;
  woken_ = false;
  changed_.notify_all();  // an Advance waiting for this pass to end
  changed_.wait(lock, [&] { return woken_ || now_.load() >= deadline_us; });
  sleeping_ = false;
}

void FakeClock::Wake() {
  woken_ = true;
  changed_.notify_all();
}

void FakeClock::Advance(TimeUs us) {
  std::mutex* mu = sleeper_mu_.load();
  if (mu == nullptr) {
    now_ += us;
    return;
  }
  std::unique_lock lock(*mu);
  now_ += us;
  // The sleeper holds the mutex except while it sleeps: not sleeping now
  // means it has stopped for good.
  if (!sleeping_) return;
  const uint64_t before = sleeps_;
  woken_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return sleeps_ > before; });
}

void FakeClock::AwaitSleeper() {
  std::mutex* mu = nullptr;
  {
    std::unique_lock registered(registered_mu_);
    registered_.wait(registered, [&] { return sleeper_mu_.load() != nullptr; });
    mu = sleeper_mu_.load();
  }
  std::unique_lock lock(*mu);
  changed_.wait(lock, [&] { return sleeping_; });
}

}  // namespace weft::runtime
