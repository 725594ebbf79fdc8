// NodeBook: a node's admission check of launches against its capacity and
// the reservations of what it already runs (docs/runtime.md, "Enforcement").
#include "runtime/node/node_book.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace weft::runtime {
namespace {

Resources R(double cpu, double mem, double disk = 0, double net = 0) { return *Resources::FromUnits({cpu, mem, disk, net}); }

TEST(NodeBookTest, RefusesALaunchPastItsCapacityAndNamesTheResource) {
  NodeBook book(R(1, 2, 100, 100));
  ASSERT_TRUE(book.Admit(0, 1, R(0.5, 0.4)).ok());
  ASSERT_TRUE(book.Admit(0, 2, R(0.5, 0.4)).ok());
  const absl::Status third = book.Admit(0, 3, R(0.5, 0.4));
  EXPECT_TRUE(absl::IsResourceExhausted(third)) << third;
  EXPECT_THAT(std::string(third.message()), testing::HasSubstr("cpu 0.5 + 1 reserved > its capacity 1"));
  // Validated before it changed anything.
  EXPECT_FALSE(book.holds(0, 3));
  EXPECT_EQ(book.reserved(), R(1, 0.8));
  // Room comes back when a task ends.
  book.Release(0, 1);
  EXPECT_TRUE(book.Admit(0, 3, R(0.5, 0.4)).ok());
  EXPECT_EQ(book.reserved(), R(1, 0.8));
}

TEST(NodeBookTest, ExactlyFullFits) {
  NodeBook book(R(1, 1));
  for (uint64_t a = 0; a < 10; ++a) ASSERT_TRUE(book.Admit(0, a, R(0.1, 0.1)).ok()) << a;
  EXPECT_FALSE(book.Admit(0, 10, R(0.000001, 0)).ok());
}

TEST(NodeBookTest, OverbookedResourcesAreNotChecked) {
  NodeBook book(R(1, 1, 100, 100));
  book.set_overbooked(MaskOf(kCpu) | MaskOf(kDisk) | MaskOf(kMem));
  ASSERT_TRUE(book.Admit(0, 1, R(1, 1, 100)).ok());
  EXPECT_TRUE(book.Admit(0, 2, R(1, 1, 100)).ok());  // two whole cores on one
  const absl::Status net = book.Admit(0, 3, R(0, 0, 0, 101));
  EXPECT_THAT(std::string(net.message()), testing::HasSubstr("net"));  // net is still checked
}

TEST(NodeBookTest, LinksShareTheMachineAndAreReleasedTogether) {
  NodeBook book(R(2, 2));
  ASSERT_TRUE(book.Admit(0, 7, R(1, 1)).ok());
  ASSERT_TRUE(book.Admit(1, 7, R(1, 1)).ok());  // the same attempt id from another daemon
  EXPECT_FALSE(book.Admit(1, 8, R(1, 0)).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(book.Admit(0, 7, R(0, 0))));  // already running
  book.ReleaseLink(0);
  EXPECT_FALSE(book.holds(0, 7));
  EXPECT_TRUE(book.holds(1, 7));
  EXPECT_EQ(book.reserved(), R(1, 1));
}

TEST(NodeBookTest, AContainerIsBookedOnceWhileItRunsTasks) {
  NodeBook book(R(2, 4));
  ASSERT_TRUE(book.Admit(0, 1, R(0.5, 0.5), /*container=*/3, R(1, 2)).ok());
  ASSERT_TRUE(book.Admit(0, 2, R(0.5, 0.5), 3, R(1, 2)).ok());
  EXPECT_EQ(book.reserved(), R(1, 2));  // its size, not its tasks'
  EXPECT_FALSE(book.Admit(0, 3, R(0.5, 0), 4, R(1.5, 1)).ok());  // another container that does not fit
  book.Release(0, 1);
  EXPECT_EQ(book.reserved(), R(1, 2));
  book.Release(0, 2);
  EXPECT_EQ(book.reserved(), R(0, 0));
}

TEST(NodeBookTest, MovesFollowProfiledPhases) {
  NodeBook book(R(1, 2));
  ASSERT_TRUE(book.Admit(0, 1, R(0.2, 0.5)).ok());   // a shuffle phase
  EXPECT_TRUE(book.Move(0, 1, R(0.8, 1.5)));         // grows to the reduce profile
  EXPECT_FALSE(book.Admit(0, 2, R(0.5, 0)).ok());
  EXPECT_TRUE(book.Move(0, 1, R(0.2, 0.2)));         // shrinks
  EXPECT_TRUE(book.Admit(0, 2, R(0.5, 0)).ok());
  EXPECT_FALSE(book.Move(0, 1, R(0.8, 0.2)));        // past capacity: applied, said
  EXPECT_EQ(book.reserved(), R(1.3, 0.2));
  EXPECT_TRUE(book.Move(0, 99, R(5, 5)));            // unknown: ignored
}

}  // namespace
}  // namespace weft::runtime
