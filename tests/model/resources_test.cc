#include "model/resources.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace weft {
namespace {

Resources Cpu(double cores) { return Resources::FromUnits({cores, 0, 0, 0}).value(); }

TEST(ResourceByNameTest, FindsKnownNamesOnly) {
  EXPECT_EQ(ResourceByName("cpu"), kCpu);
  EXPECT_EQ(ResourceByName("mem"), kMem);
  EXPECT_EQ(ResourceByName("disk"), kDisk);
  EXPECT_EQ(ResourceByName("net"), kNet);
  EXPECT_EQ(ResourceByName("gpu"), std::nullopt);
  EXPECT_EQ(ResourceByName("CPU"), std::nullopt);
  EXPECT_EQ(ResourceByName(""), std::nullopt);
}

TEST(ResourcesTest, FromUnitsStoresMicroUnits) {
  const Resources r = Resources::FromUnits({1, 2.5, 0.000001, 1250}).value();
  EXPECT_EQ(r.micro(kCpu), 1'000'000);
  EXPECT_EQ(r.micro(kMem), 2'500'000);
  EXPECT_EQ(r.micro(kDisk), 1);
  EXPECT_EQ(r.micro(kNet), 1'250'000'000);
  EXPECT_EQ(r.units(kMem), 2.5);
}

TEST(ResourcesTest, FromUnitsRoundsToNearestMicroUnit) {
  EXPECT_EQ(Cpu(0.1).micro(kCpu), 100'000);
  EXPECT_EQ(Cpu(0.0000005).micro(kCpu), 1);
  EXPECT_EQ(Cpu(0.0000004).micro(kCpu), 0);
  EXPECT_EQ(Cpu(0.6).micro(kCpu), 600'000);
  EXPECT_EQ(Cpu(1e12).micro(kCpu), 1'000'000'000'000'000'000);
}

TEST(ResourcesTest, FromUnitsRejectsNegativeNonFiniteAndHuge) {
  using L = std::numeric_limits<double>;
  for (double bad : {-1.0, -0.000001, L::quiet_NaN(), L::infinity(), -L::infinity(), 1.0000001e12, 1e300}) {
    auto r = Resources::FromUnits({1, bad, 0, 0});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), "mem must be a finite number between 0 and 1000000000000") << bad;
  }
}

TEST(ResourcesTest, DefaultIsZero) {
  EXPECT_TRUE(Resources().IsZero());
  EXPECT_FALSE(Cpu(0.000001).IsZero());
  EXPECT_EQ(Resources(), Cpu(0));
}

TEST(ResourcesTest, FitsInComparesEveryComponent) {
  const Resources cap = Resources::FromUnits({4, 8, 0, 100}).value();
  EXPECT_TRUE(cap.FitsIn(cap));
  EXPECT_TRUE(Resources().FitsIn(cap));
  EXPECT_TRUE(Resources::FromUnits({4, 1, 0, 0}).value().FitsIn(cap));
  EXPECT_FALSE(Resources::FromUnits({4.000001, 1, 0, 0}).value().FitsIn(cap));
  EXPECT_FALSE(Resources::FromUnits({1, 8.5, 0, 0}).value().FitsIn(cap));
  // A dimension the machine lacks cannot be used at all.
  EXPECT_FALSE(Resources::FromUnits({0, 0, 0.000001, 0}).value().FitsIn(cap));
  EXPECT_FALSE(cap.FitsIn(Resources()));
}

TEST(ResourcesTest, AddingTenthsIsExact) {
  Resources sum;
  for (int i = 0; i < 10; ++i) sum += Cpu(0.1);
  EXPECT_EQ(sum, Cpu(1));
  for (int i = 0; i < 10; ++i) sum -= Cpu(0.1);
  EXPECT_TRUE(sum.IsZero());
}

TEST(ResourcesTest, ArithmeticIsComponentwise) {
  const Resources a = Resources::FromUnits({1, 2, 3, 4}).value();
  const Resources b = Resources::FromUnits({0.5, 0, 1, 4}).value();
  EXPECT_EQ(a + b, Resources::FromUnits({1.5, 2, 4, 8}).value());
  EXPECT_EQ(a - b, Resources::FromUnits({0.5, 2, 2, 0}).value());
  EXPECT_EQ(a + b - b, a);
}

TEST(ResourcesTest, ToStringListsNonZeroComponents) {
  EXPECT_EQ(Resources::FromUnits({1, 2.5, 0, 0}).value().ToString(), "cpu=1 mem=2.5");
  EXPECT_EQ(Resources::FromUnits({0, 0, 0, 1250}).value().ToString(), "net=1250");
  EXPECT_EQ(Resources().ToString(), "none");
}

}  // namespace
}  // namespace weft
