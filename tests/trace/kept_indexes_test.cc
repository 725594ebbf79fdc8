// File: tests/trace/kept_indexes_test.cc
//
// KeptIndexes against a std::set of the same indexes, dense and sparse.
#include "trace/kept_indexes.h"

#include <random>
#include <set>

#include "gtest/gtest.h"

namespace weft {
namespace {

KeptIndexes Of(const std::set<int64_t>& kept) {
  KeptIndexes set(*kept.begin(), *kept.rbegin(), kept.size());
  for (int64_t i : kept) set.Add(i);
  return set;
}

TEST(KeptIndexesTest, DenseSetsHoldExactlyTheirIndexes) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 200; ++round) {
    // A job of n tasks numbered from `base`, each kept with probability 3/4.
    const int64_t base = round % 3 == 0 ? 0 : static_cast<int64_t>(random() % 1000) - 500;
    const int n = 1 + static_cast<int>(random() % 300);
    std::set<int64_t> kept;
    for (int i = 0; i < n; ++i) {
      if (random() % 4 != 0) kept.insert(base + i);
    }
    if (kept.empty()) kept.insert(base);
    const KeptIndexes set = Of(kept);
    ASSERT_TRUE(set.exact()) << "round " << round;
    for (int64_t i = base - 70; i < base + n + 70; ++i) {
      EXPECT_EQ(set.Holds(i), kept.contains(i)) << "round " << round << " index " << i;
    }
  }
}

TEST(KeptIndexesTest, SparseSetsHoldEveryIndex) {
  // Two indexes 10,000 apart would need 157 words for 2 kept: not stored.
  const KeptIndexes set = Of({3, 10003});
  EXPECT_FALSE(set.exact());
  EXPECT_TRUE(set.Holds(3));
  EXPECT_TRUE(set.Holds(5000));
  // The widest range does not overflow into a small bitmap.
  EXPECT_FALSE(Of({INT64_MIN, INT64_MAX}).exact());
  // At the boundary: 2 kept indexes spanning 3 words are stored, 4 words not.
  EXPECT_TRUE(Of({0, 191}).exact());
  EXPECT_FALSE(Of({0, 192}).exact());
}

TEST(KeptIndexesTest, ADefaultSetIsNotExact) {
  const KeptIndexes set;
  EXPECT_FALSE(set.exact());
  EXPECT_TRUE(set.Holds(42));
}

}  // namespace
}  // namespace weft
