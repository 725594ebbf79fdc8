// File: tests/runtime/wire_test.cc
//
// The role-to-role channel's conversions (runtime/wire.h): a policy::Message
// survives ToProto, serialization to bytes, parsing and FromProto with every
// field intact, its fractional payload x included, so a node agent
// hosted in `weftd node` hears exactly what a simulated one would.
#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "runtime/wire.h"

namespace weft::runtime {
namespace {

policy::Message OverTheWire(const policy::Message& m) {
  std::string bytes;
  EXPECT_TRUE(ToProto(m).SerializeToString(&bytes));
  v1::RoleMessage parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  return FromProto(parsed);
}

TEST(WireTest, AMessageRoundTripsWithItsFractionalPayloads) {
  const policy::Message sent{.type = 7, .task = TaskRef{JobId(3), 2, 41}, .a = -5, .b = 1LL << 40, .c = 9,
                             .x = 0.1 + 0.2, .list = {4, -8, 15}};
  const policy::Message got = OverTheWire(sent);
  EXPECT_EQ(got.type, 7u);
  EXPECT_EQ(got.task, sent.task);
  EXPECT_EQ(got.a, -5);
  EXPECT_EQ(got.b, 1LL << 40);
  EXPECT_EQ(got.c, 9);
  // Exactly, bit for bit: no decimal or fixed-point step on the way.
  EXPECT_EQ(got.x, 0.1 + 0.2);
  EXPECT_EQ(got.list, sent.list);
  EXPECT_EQ(OverTheWire(policy::Message{.x = 1.0 / 3.0}).x, 1.0 / 3.0);
  EXPECT_EQ(OverTheWire(policy::Message{.x = -2.5e-300}).x, -2.5e-300);
}

TEST(WireTest, AMessageWithoutTaskOrPayloadStaysEmpty) {
  const policy::Message got = OverTheWire(policy::Message{.type = 2});
  EXPECT_FALSE(got.task.job.valid());
  EXPECT_EQ(got.x, 0.0);
  EXPECT_TRUE(got.list.empty());
}

TEST(WireTest, NonFiniteAndSignedZeroRealsArePassedAsThePolicySentThem) {
  // The channel carries values, it does not judge them: a policy that sends
  // an infinite desire gets it delivered as such.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(OverTheWire(policy::Message{.x = -inf}).x, -inf);
  EXPECT_TRUE(std::isnan(OverTheWire(policy::Message{.x = std::nan("")}).x));
  EXPECT_TRUE(std::signbit(OverTheWire(policy::Message{.x = -0.0}).x));
}

}  // namespace
}  // namespace weft::runtime
