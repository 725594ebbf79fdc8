// File: runtime/scheduler/clock.h
//
// Clock: where the scheduler core reads the time and how its clock thread
// sleeps until the next deadline (a policy timer, a heartbeat check). The
// daemon uses the real clock (SteadyClock); tests inject a FakeClock and move
// time on by hand, so heartbeat deadlines and timers are reached without
// waiting and at exactly the time the test says.
//
// Sleep and Wake are called with the same mutex held (the core's lock): the
// sleeper's lock is released while it sleeps, like a condition variable's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "core/time.h"

namespace weft::runtime {

class Clock {
 public:
  virtual ~Clock() = default;
  // NowUs: monotonic microseconds from an arbitrary origin.
  virtual TimeUs NowUs() const = 0;
  // UnixUs: microseconds since the Unix epoch (wall time; only to date the
  // journal's epoch, which must survive a restart of the machine).
  virtual int64_t UnixUs() const = 0;
  // SleepUntil releases `lock`, waits until NowUs() >= deadline_us or a Wake,
  // and takes `lock` again. It may return early: callers recheck the time.
  virtual void SleepUntil(std::unique_lock<std::mutex>& lock, TimeUs deadline_us) = 0;
  // Wake ends a SleepUntil now (called under the sleeper's mutex).
  virtual void Wake() = 0;
};

// SteadyClock: std::chrono::steady_clock and system_clock.
class SteadyClock final : public Clock {
 public:
  TimeUs NowUs() const override;
  int64_t UnixUs() const override;
  void SleepUntil(std::unique_lock<std::mutex>& lock, TimeUs deadline_us) override;
  void Wake() override { wake_.notify_all(); }

 private:
  std::condition_variable wake_;
};

// FakeClock: time moves only when Advance says. Its Unix time is
// `unix_start_us` plus NowUs().
//
// Advance is deterministic with a clock thread: if a thread sleeps in
// SleepUntil, Advance wakes it (whatever its deadline: a pass at the new
// time is what a test wants to see) and returns only once it sleeps again,
// so the pass over the new time is complete when Advance returns.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimeUs start_us = 0, int64_t unix_start_us = 1'700'000'000'000'000)
      : now_(start_us), unix_start_us_(unix_start_us) {}
  TimeUs NowUs() const override { return now_.load(); }
  int64_t UnixUs() const override { return unix_start_us_ + now_.load(); }
  void SleepUntil(std::unique_lock<std::mutex>& lock, TimeUs deadline_us) override;
  void Wake() override;
  // Advance moves time on by `us` (see above).
  void Advance(TimeUs us);
  // AwaitSleeper blocks until some thread sleeps in SleepUntil (a clock
  // thread has started and finished its first pass).
  void AwaitSleeper();

 private:
  std::atomic<TimeUs> now_;
  const int64_t unix_start_us_;
  std::mutex registered_mu_;  // AwaitSleeper's wait for the first sleeper
  std::condition_variable registered_;
  // The sleeper's mutex, once a thread has slept; the fields below are
  // guarded by it.
  std::atomic<std::mutex*> sleeper_mu_{nullptr};
  std::condition_variable_any changed_;
  bool sleeping_ = false;
  bool woken_ = false;
  uint64_t sleeps_ = 0;  // SleepUntil calls so far
};

}  // namespace weft::runtime
