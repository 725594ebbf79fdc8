#include "runtime/node/link_lease.h"

#include <algorithm>

namespace weft::runtime {

void LinkLease::Start(int64_t lease_ms, Clock::time_point now) {
  lease_ns_ = std::max<int64_t>(0, lease_ms) * 1'000'000;
  until_ns_ = 0;
  next_seq_ = 1;
  unanswered_.clear();
  next_renewal_ = now;
  last_grant_ = now;
}

uint64_t LinkLease::Renew(Clock::time_point now, int64_t boot_ns, Clock::duration heartbeat) {
  const uint64_t seq = next_seq_++;
  if (unanswered_.size() >= kMaxUnanswered) unanswered_.pop_front();
  unanswered_.emplace_back(seq, boot_ns);
  const Clock::duration period = std::chrono::nanoseconds(lease_ns_ / kRenewalsPerLease);
  next_renewal_ = now + std::min(period, heartbeat);
  return seq;
}

void LinkLease::Granted(uint64_t seq, Clock::time_point now) {
  while (!unanswered_.empty() && unanswered_.front().first < seq) unanswered_.pop_front();
  if (unanswered_.empty() || unanswered_.front().first != seq) return;
  until_ns_ = std::max(until_ns_, unanswered_.front().second + lease_ns_);
  unanswered_.pop_front();
  last_grant_ = now;
}

}  // namespace weft::runtime
