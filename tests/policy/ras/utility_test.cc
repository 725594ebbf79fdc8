// RAS's utility (Eq. 1-3) on the example of the paper's Fig. 2 (s_req = 20,
// s_pend = 35, r_pend = 10), the finite values given to every case the
// equations leave undefined, the order they keep (monotone in each
// allocation, a job without a map slot below every job with one), and the
// completion time estimator's s_req.
#include "policy/ras/utility.h"

#include <cmath>

#include "gtest/gtest.h"

namespace weft::policy::ras {
namespace {

TEST(RasUtilityTest, FigureTwoExample) {
  // Map part: logarithmic from -inf to 0 below s_req, linear 0..1 above.
  EXPECT_DOUBLE_EQ(MapUtility(20, 20, 35), 0.0);
  EXPECT_DOUBLE_EQ(MapUtility(35, 20, 35), 1.0);
  EXPECT_DOUBLE_EQ(MapUtility(29, 20, 35), 0.6);
  EXPECT_DOUBLE_EQ(MapUtility(10, 20, 35), std::log(10.0) / std::log(20.0) - 1);  // -0.2314
  EXPECT_NEAR(MapUtility(10, 20, 35), -0.231378, 1e-6);
  EXPECT_DOUBLE_EQ(MapUtility(1, 20, 35), -1.0);
  // Reduce part: -1..0, 0 once all ten reducers are placed.
  EXPECT_DOUBLE_EQ(ReduceUtility(10, 10), 0.0);
  EXPECT_NEAR(ReduceUtility(5, 10), -0.301030, 1e-6);
  EXPECT_DOUBLE_EQ(ReduceUtility(1, 10), -1.0);
  // Eq. 1: the sum, capped at 1.
  EXPECT_NEAR(JobUtility(20, 20, 35, 5, 10), -0.301030, 1e-6);
  EXPECT_DOUBLE_EQ(JobUtility(35, 20, 35, 10, 10), 1.0);
  EXPECT_DOUBLE_EQ(JobUtility(40, 20, 35, 10, 10), 1.0);  // more than pending: capped
}

TEST(RasUtilityTest, UndefinedCasesAreFinite) {
  // s_alloc = 0 (log 0): kNoMapSlot, below anything a job with a slot gets.
  EXPECT_EQ(MapUtility(0, 20, 35), kNoMapSlot);
  EXPECT_LT(JobUtility(0, 20, 35, 10, 10), JobUtility(1, 20, 35, 0, 10));
  // s_req <= 1: no slot is kNoMapSlot, one slot is the linear branch.
  EXPECT_EQ(MapUtility(0, 1, 35), kNoMapSlot);
  EXPECT_DOUBLE_EQ(MapUtility(1, 1, 35), 0.0);
  EXPECT_DOUBLE_EQ(MapUtility(18, 1, 35), 0.5);
  // s_req = 0 (no concurrency needed): linear from 0.
  EXPECT_DOUBLE_EQ(MapUtility(0, 0, 4), 0.0);
  EXPECT_DOUBLE_EQ(MapUtility(2, 0, 4), 0.5);
  // s_pend = s_req: the linear branch's denominator is 0; all placed is 1.
  EXPECT_DOUBLE_EQ(MapUtility(7, 7, 7), 1.0);
  EXPECT_NEAR(MapUtility(3, 7, 7), std::log(3.0) / std::log(7.0) - 1, 1e-12);
  // s_pend = 0 (map phase over): 1.
  EXPECT_DOUBLE_EQ(MapUtility(0, 0, 0), 1.0);
  // r_pend = 1 (log 1 = 0): one reducer 0, none -1.
  EXPECT_DOUBLE_EQ(ReduceUtility(1, 1), 0.0);
  EXPECT_DOUBLE_EQ(ReduceUtility(0, 1), -1.0);
  // r_alloc = 0 with several pending: -1, the bottom of Eq. 3's range.
  EXPECT_DOUBLE_EQ(ReduceUtility(0, 10), -1.0);
  EXPECT_DOUBLE_EQ(ReduceUtility(0, 0), 0.0);
}

TEST(RasUtilityTest, MonotoneInEachAllocationAndAlwaysFinite) {
  for (double s_pend : {0.0, 1.0, 2.0, 7.0, 35.0}) {
    for (double s_req = 0; s_req <= s_pend; ++s_req) {
      for (double r_pend : {0.0, 1.0, 2.0, 10.0}) {
        for (double r = 0; r <= r_pend; ++r) {
          double last = -1e9;
          for (double s = 0; s <= s_pend + 2; ++s) {
            const double u = JobUtility(s, s_req, s_pend, r, r_pend);
            ASSERT_TRUE(std::isfinite(u));
            ASSERT_GE(u, last) << s << " " << s_req << " " << s_pend << " " << r << " " << r_pend;
            ASSERT_LE(u, 1.0);
            last = u;
          }
        }
        double last = -1e9;
        for (double r = 0; r <= r_pend + 1; ++r) {
          const double u = ReduceUtility(r, r_pend);
          ASSERT_GE(u, -1.0);
          ASSERT_LE(u, 0.0);
          ASSERT_GE(u, last);
          last = u;
        }
      }
    }
  }
}

TEST(RasUtilityTest, RequiredMapSlots) {
  // 100 maps of 10 s, 60 s left of which 10 s for the reduce phase: 20 at once.
  EXPECT_EQ(RequiredMapSlots(100, 10, 10, 60), 20u);
  EXPECT_EQ(RequiredMapSlots(100, 10, 0, 1000), 1u);  // relaxed: one slot meets it
  EXPECT_EQ(RequiredMapSlots(100, 10, 0, 5), 100u);   // less than one map left: all
  EXPECT_EQ(RequiredMapSlots(100, 10, 0, 0), 100u);   // "as soon as possible"
  EXPECT_EQ(RequiredMapSlots(100, 10, 0, -50), 100u); // goal passed
  EXPECT_EQ(RequiredMapSlots(0, 10, 0, 60), 0u);
  EXPECT_EQ(RequiredMapSlots(3, 10, 0, 15), 2u);
}

}  // namespace
}  // namespace weft::policy::ras
