// NodeLeases (issue 34, finding 3): a lost node's machine goes down only once
// the last lease granted there has run out, plus the margin.
#include "runtime/scheduler/node_leases.h"

#include "gtest/gtest.h"

namespace weft::runtime {
namespace {

constexpr TimeUs kLease = 1'000'000;
constexpr TimeUs kMargin = 500'000;

TEST(NodeLeasesTest, ALostNodeIsHeldUntilItsLastLeaseAndTheMarginHavePassed) {
  NodeLeases leases(kLease, kMargin);
  leases.Resize(2);
  leases.Granted(0, 0);
  leases.Granted(0, 2'000'000);  // the last grant: the lease holds until 3 s
  leases.Lost(0);
  EXPECT_TRUE(leases.held(0));
  EXPECT_FALSE(leases.held(1));
  EXPECT_TRUE(leases.TakeDue(3'499'999).empty());
  const std::vector<NodeLeases::Due> due = leases.TakeDue(3'500'000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].slot, 0u);
  EXPECT_TRUE(due[0].down);
  EXPECT_FALSE(leases.held(0));
  EXPECT_TRUE(leases.TakeDue(10'000'000).empty());
}

TEST(NodeLeasesTest, ANodeLostLongAfterItsLastLeaseIsDueAtOnce) {
  NodeLeases leases(kLease, kMargin);
  leases.Granted(0, 0);
  leases.Lost(0);  // e.g. silent for the 5 s node timeout: due since 1.5 s
  ASSERT_EQ(leases.TakeDue(5'000'000).size(), 1u);
}

// Lost, registered again (a new lease), lost again while still held: the
// later lease decides, and the machine, still up in the engine, goes down once.
TEST(NodeLeasesTest, LostAgainWhileHeldWaitsForTheLaterLease) {
  NodeLeases leases(kLease, kMargin);
  leases.Granted(0, 0);
  leases.Lost(0);
  leases.Granted(0, 1'000'000);
  leases.Lost(0);
  EXPECT_TRUE(leases.TakeDue(2'499'999).empty());
  const std::vector<NodeLeases::Due> due = leases.TakeDue(2'500'000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_TRUE(due[0].down);
}

// A restarted scheduler does not know what its previous run granted: every
// slot is held for a lease and the margin; its machine, down in the engine
// since the restart, is not taken down again.
TEST(NodeLeasesTest, ARestartHoldsEverySlotForALeaseAndTheMargin) {
  NodeLeases leases(kLease, kMargin);
  leases.Resize(3);
  leases.Restarted(10'000'000);
  for (uint32_t s = 0; s < 3; ++s) EXPECT_TRUE(leases.held(s));
  EXPECT_TRUE(leases.TakeDue(11'499'999).empty());
  const std::vector<NodeLeases::Due> due = leases.TakeDue(11'500'000);
  ASSERT_EQ(due.size(), 3u);
  for (const NodeLeases::Due& d : due) EXPECT_FALSE(d.down);
}

// A node that registered after the restart and was lost before the hold
// ended never came up in the engine: it is not taken down.
TEST(NodeLeasesTest, ANodeLostWhileHeldSinceARestartIsNotTakenDown) {
  NodeLeases leases(kLease, kMargin);
  leases.Resize(1);
  leases.Restarted(0);
  leases.Granted(0, 100'000);
  leases.Lost(0);
  const std::vector<NodeLeases::Due> due = leases.TakeDue(1'600'000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_FALSE(due[0].down);
}

}  // namespace
}  // namespace weft::runtime
