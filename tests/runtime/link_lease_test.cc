// LinkLease (issue 34, finding 3): a node's lease on one link, on given times.
#include "runtime/node/link_lease.h"

#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

using Clock = LinkLease::Clock;
using std::chrono::milliseconds;

constexpr int64_t kMs = 1'000'000;  // ns

// A grant of heartbeat n holds from when n was sent, not from when the
// grant came; grants of older heartbeats never shorten it.
TEST(LinkLeaseTest, AGrantHoldsFromWhenItsHeartbeatWasSent) {
  LinkLease lease;
  const Clock::time_point t0{};
  lease.Start(1000, t0);
  EXPECT_TRUE(lease.granted_by_scheduler());
  EXPECT_EQ(lease.until_ns(), 0);  // none before the first grant
  EXPECT_TRUE(lease.RenewalDue(t0));
  const uint64_t first = lease.Renew(t0, 100 * kMs, milliseconds(500));
  const uint64_t second = lease.Renew(t0 + milliseconds(200), 300 * kMs, milliseconds(500));
  EXPECT_EQ(second, first + 1);
  lease.Granted(second, t0 + milliseconds(900));
  EXPECT_EQ(lease.until_ns(), 1300 * kMs);
  EXPECT_EQ(lease.last_grant(), t0 + milliseconds(900));
  lease.Granted(first, t0 + milliseconds(950));  // late, and no longer awaited
  EXPECT_EQ(lease.until_ns(), 1300 * kMs);
  EXPECT_EQ(lease.last_grant(), t0 + milliseconds(900));
  lease.Granted(second + 5, t0 + milliseconds(990));  // never sent
  EXPECT_EQ(lease.until_ns(), 1300 * kMs);
}

// Renewals come every fifth of the lease, or at every heartbeat if sooner.
TEST(LinkLeaseTest, RenewalsComeEveryFifthOfTheLeaseOrAtTheHeartbeat) {
  LinkLease lease;
  const Clock::time_point t0{};
  lease.Start(1000, t0);
  lease.Renew(t0, 0, milliseconds(500));
  EXPECT_EQ(lease.next_renewal(), t0 + milliseconds(200));
  EXPECT_FALSE(lease.RenewalDue(t0 + milliseconds(199)));
  EXPECT_TRUE(lease.RenewalDue(t0 + milliseconds(200)));
  lease.Renew(t0, 0, milliseconds(100));
  EXPECT_EQ(lease.next_renewal(), t0 + milliseconds(100));
}

// A scheduler that grants none (lease_ms 0): nothing to renew; a new
// session forgets the old one's grants and numbers.
TEST(LinkLeaseTest, ANewSessionStartsWithoutALease) {
  LinkLease lease;
  const Clock::time_point t0{};
  lease.Start(0, t0);
  EXPECT_FALSE(lease.granted_by_scheduler());
  EXPECT_FALSE(lease.RenewalDue(t0 + milliseconds(1000)));
  lease.Start(1000, t0);
  const uint64_t seq = lease.Renew(t0, 50 * kMs, milliseconds(500));
  lease.Granted(seq, t0);
  EXPECT_EQ(lease.until_ns(), 1050 * kMs);
  lease.Start(1000, t0 + milliseconds(10));
  EXPECT_EQ(lease.until_ns(), 0);
  EXPECT_EQ(lease.Renew(t0, 0, milliseconds(500)), 1u);
}

}  // namespace
}  // namespace weft::runtime
