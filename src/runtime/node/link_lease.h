// File: runtime/node/link_lease.h
//
// LinkLease: a node's lease from the scheduler on one link (issue 34,
// finding 3; docs/runtime.md, "Node loss"). The node renews it with
// numbered heartbeats; the scheduler answers each with a grant, and a grant
// of heartbeat n lets the node's tasks run until n was sent plus the lease.
// Counting from the send, which comes before the scheduler's grant, keeps
// the node's view of the lease ending before the scheduler's.
//
// Plain data: no clock, no I/O. `now` is the daemon's steady clock (when to
// renew), `boot_ns` the boot-time clock the keeper enforces the lease on
// (NodeKeeper::BootTimeNs). Not thread-safe: the daemon's main thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <utility>

namespace weft::runtime {

class LinkLease {
 public:
  using Clock = std::chrono::steady_clock;
  // A lease is renewed this many times per lease (or at every heartbeat, if
  // more often): the scheduler may be slow to answer for most of a lease
  // before the node's tasks are frozen.
  static constexpr int64_t kRenewalsPerLease = 5;
  // Heartbeats not answered yet, kept to match grants; a scheduler further
  // behind than this only makes the oldest ones useless.
  static constexpr size_t kMaxUnanswered = 1000;

  // Start: a new session at `now` with a scheduler granting leases of
  // `lease_ms` (0 or less: none). No lease until the first grant; the first
  // renewal is due at once.
  void Start(int64_t lease_ms, Clock::time_point now);

  // granted_by_scheduler: the scheduler grants leases (else the tasks of
  // this link run without one).
  bool granted_by_scheduler() const { return lease_ns_ > 0; }
  int64_t lease_ns() const { return lease_ns_; }
  // until_ns: until when (boot_ns) the last grant lets the tasks run; 0 before the first.
  int64_t until_ns() const { return until_ns_; }
  Clock::time_point next_renewal() const { return next_renewal_; }
  // last_grant: when the last grant came (or the session started).
  Clock::time_point last_grant() const { return last_grant_; }

  bool RenewalDue(Clock::time_point now) const { return granted_by_scheduler() && now >= next_renewal_; }
  // Renew: the number for a heartbeat sent at `now` (`boot_ns`), which
  // renews the lease; the next renewal is due a lease / kRenewalsPerLease
  // later, or at the next `heartbeat` if that is sooner. Only when
  // granted_by_scheduler().
  uint64_t Renew(Clock::time_point now, int64_t boot_ns, Clock::duration heartbeat);
  // Granted: the scheduler answered heartbeat `seq` (received at `now`);
  // a number not (or no longer) awaited changes nothing.
  void Granted(uint64_t seq, Clock::time_point now);

 private:
  int64_t lease_ns_ = 0;
  int64_t until_ns_ = 0;
  uint64_t next_seq_ = 1;
  std::deque<std::pair<uint64_t, int64_t>> unanswered_;  // (seq, boot_ns when sent)
  Clock::time_point next_renewal_;
  Clock::time_point last_grant_;
};

}  // namespace weft::runtime
