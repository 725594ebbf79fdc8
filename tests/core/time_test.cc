#include "core/time.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace weft {
namespace {

TEST(SecondsToUsTest, RoundsToNearestMicrosecond) {
  EXPECT_EQ(SecondsToUs(2.5).value(), 2'500'000);
  EXPECT_EQ(SecondsToUs(0.0).value(), 0);
  EXPECT_EQ(SecondsToUs(123.4567894).value(), 123'456'789);
  EXPECT_EQ(SecondsToUs(0.0000001).value(), 0);
  EXPECT_EQ(SecondsToUs(0.0000004999).value(), 0);
}

TEST(SecondsToUsTest, RoundsHalfAwayFromZero) {
  EXPECT_EQ(SecondsToUs(0.0000005).value(), 1);
  EXPECT_EQ(SecondsToUs(-0.0000005).value(), -1);
}

TEST(SecondsToUsTest, ConvertsNegativeSeconds) {
  EXPECT_EQ(SecondsToUs(-2.5).value(), -2'500'000);
  EXPECT_EQ(SecondsToUs(-0.000001).value(), -1);
}

TEST(SecondsToUsTest, RejectsNonFinite) {
  for (double s : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    auto us = SecondsToUs(s);
    ASSERT_FALSE(us.ok()) << s;
    EXPECT_EQ(us.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(SecondsToUsTest, AcceptsUpToMaxSecondsAndRejectsBeyond) {
  EXPECT_EQ(SecondsToUs(kMaxSeconds).value(), 1'000'000'000'000'000'000);
  EXPECT_EQ(SecondsToUs(-kMaxSeconds).value(), -1'000'000'000'000'000'000);
  const double above = std::nextafter(kMaxSeconds, 2 * kMaxSeconds);
  EXPECT_EQ(SecondsToUs(above).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SecondsToUs(-above).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(SecondsToUs(1e300).ok());
}

TEST(UsToSecondsTest, ConvertsToSeconds) {
  EXPECT_EQ(UsToSeconds(2'500'000), 2.5);
  EXPECT_EQ(UsToSeconds(-1), -1e-6);
}

TEST(FormatSecondsTest, PrintsSixDecimals) {
  EXPECT_EQ(FormatSeconds(0), "0.000000");
  EXPECT_EQ(FormatSeconds(1), "0.000001");
  EXPECT_EQ(FormatSeconds(12'000'250), "12.000250");
  EXPECT_EQ(FormatSeconds(2'500'000), "2.500000");
}

TEST(FormatSecondsTest, PrintsNegativesExactly) {
  EXPECT_EQ(FormatSeconds(-1), "-0.000001");
  EXPECT_EQ(FormatSeconds(-999'999), "-0.999999");
  EXPECT_EQ(FormatSeconds(-2'500'000), "-2.500000");
}

TEST(FormatSecondsTest, PrintsExtremesExactly) {
  EXPECT_EQ(FormatSeconds(std::numeric_limits<TimeUs>::max()), "9223372036854.775807");
  EXPECT_EQ(FormatSeconds(std::numeric_limits<TimeUs>::min()), "-9223372036854.775808");
  EXPECT_EQ(FormatSeconds(1'000'000'000'000'000'000), "1000000000000.000000");
}

TEST(FormatSecondsTest, RoundTripsThroughSecondsToUs) {
  for (TimeUs us : {TimeUs{0}, TimeUs{1}, TimeUs{-7}, TimeUs{86'400'000'001}}) {
    EXPECT_EQ(SecondsToUs(std::stod(FormatSeconds(us))).value(), us) << us;
  }
}

}  // namespace
}  // namespace weft
