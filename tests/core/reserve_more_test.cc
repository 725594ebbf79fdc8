// File: tests/core/reserve_more_test.cc
//
// ReserveMore grows geometrically: many one-element additions reallocate a
// logarithmic number of times, not once each.
#include "core/reserve_more.h"

#include <vector>

#include "gtest/gtest.h"

namespace weft {
namespace {

TEST(ReserveMoreTest, OneAtATimeReallocatesLogarithmically) {
  std::vector<int> v;
  int reallocations = 0;
  for (int i = 0; i < 100'000; ++i) {
    const int* before = v.data();
    ReserveMore(v, 1);
    if (v.data() != before) ++reallocations;
    v.push_back(i);
  }
  EXPECT_LE(reallocations, 20);  // exact reservations would reallocate 100,000 times
  EXPECT_EQ(v.size(), 100'000u);
}

TEST(ReserveMoreTest, MakesRoomForABigBatchAtOnce) {
  std::vector<int> v(10);
  ReserveMore(v, 1000);
  EXPECT_GE(v.capacity(), 1010u);
  const int* data = v.data();
  for (int i = 0; i < 1000; ++i) v.push_back(i);
  EXPECT_EQ(v.data(), data);  // no reallocation within the reserved room
}

}  // namespace
}  // namespace weft
