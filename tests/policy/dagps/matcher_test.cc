// File: tests/policy/dagps/matcher_test.cc
//
// The online matcher's pieces (001_a7e14c78d79bdb00.txt, section 5, Fig. 8):
// perfScore = priScore x pScore x rPenalty - eta x srpt with hand-computed
// numbers; eta = m x mean(priScore x pScore) / mean(srpt) (section 8.5);
// tasks that fit beat overbooked ones; the neediest group's restriction; and
// the deficit counters' bound: a group that always loses on score is never
// more than kappa plus one allocation behind its fair share.
#include <vector>

#include "gtest/gtest.h"
#include "policy/dagps/matcher.h"

namespace weft::policy::dagps {
namespace {

TEST(DagpsMatcherTest, PerfScoreCombinesPlanPackingRemoteAndSrpt) {
  MatchCandidate c{.pri_score = 0.5, .alignment = 0.8, .fits = true, .remote = false, .srpt = 10, .group = 0};
  EXPECT_DOUBLE_EQ(PerfScore(c, 0.01, 0.8), 0.5 * 0.8 - 0.1);
  c.remote = true;
  EXPECT_DOUBLE_EQ(PerfScore(c, 0.01, 0.8), 0.5 * 0.8 * 0.8 - 0.1);
}

TEST(DagpsMatcherTest, EtaIsMTimesTheRatioOfTheMeans) {
  const std::vector<MatchCandidate> cs = {
      {.pri_score = 1.0, .alignment = 0.6, .fits = true, .srpt = 20},
      {.pri_score = 0.5, .alignment = 0.4, .fits = true, .srpt = 60},
      {.pri_score = 0.9, .alignment = 0, .fits = false, .overbook = 0.5, .srpt = 1000},  // other class
  };
  // mean score (0.6 + 0.2) / 2 = 0.4, mean srpt 40: eta = 0.2 x 0.01.
  EXPECT_DOUBLE_EQ(Eta(cs, 0.2, 0.8), 0.2 * 0.8 / 80);
}

TEST(DagpsMatcherTest, PicksTheHighestScoreAndFittingBeatsOverbooking) {
  std::vector<MatchCandidate> cs = {
      {.pri_score = 0.2, .alignment = 0.9, .fits = true, .srpt = 0, .group = 0},   // 0.18
      {.pri_score = 1.0, .alignment = 0.3, .fits = true, .srpt = 0, .group = 1},   // 0.30
      {.pri_score = 1.0, .alignment = 0, .fits = false, .overbook = 1.0, .group = 0},  // 1.0, but overbooked
  };
  EXPECT_EQ(PickBest(cs, 0, 0.8), 1u);
  // Restricted to group 0: the fitting one of group 0.
  EXPECT_EQ(PickBest(cs, 0, 0.8, 0u), 0u);
  // The srpt term can turn the choice: job of candidate 1 has much work left.
  cs[1].srpt = 100;
  EXPECT_EQ(PickBest(cs, 0.002, 0.8), 0u);  // 0.30 - 0.2 < 0.18
  // Nothing fits: the overbooked one is taken.
  cs[0].fits = cs[1].fits = false;
  EXPECT_EQ(PickBest(cs, 0, 0.8), 2u);
  cs[2].overbook = 0;
  EXPECT_FALSE(PickBest(cs, 0, 0.8).has_value());
}

TEST(DagpsDeficitTest, ChargesFairSharesAndResetsIdleGroups) {
  DeficitCounters d;
  d.SetActive(1, true, 1);
  d.SetActive(2, true, 3);
  d.Charge(1, 0.4);  // 1 gets 0.4: 1 -> 0.1 - 0.4, 2 -> 0.3
  EXPECT_DOUBLE_EQ(d.deficit(1), -0.3);
  EXPECT_DOUBLE_EQ(d.deficit(2), 0.3);
  EXPECT_EQ(d.Neediest(0.25), 2u);
  EXPECT_FALSE(d.Neediest(0.31).has_value());
  d.SetActive(2, false);
  EXPECT_DOUBLE_EQ(d.deficit(2), 0);
  EXPECT_FALSE(d.active(2));
}

// Two equal groups; group 0's tasks always score higher, every allocation
// is `a`. With the Fig. 8 rule (serve the neediest group once its deficit
// reaches kappa), group 1's deficit never exceeds kappa + a / 2, and with
// kappa = 0 the two alternate.
TEST(DagpsDeficitTest, UnfairnessIsBoundedByKappa) {
  for (const double kappa : {0.0, 0.05, 0.2}) {
    DeficitCounters d;
    d.SetActive(0, true);
    d.SetActive(1, true);
    const double a = 0.03;
    std::vector<MatchCandidate> cs = {{.pri_score = 1, .alignment = 1, .fits = true, .group = 0},
                                      {.pri_score = 0.1, .alignment = 1, .fits = true, .group = 1}};
    int served1 = 0;
    for (int step = 0; step < 1000; ++step) {
      std::optional<size_t> pick;
      if (auto needy = d.Neediest(kappa)) pick = PickBest(cs, 0, 1, needy);
      if (!pick) pick = PickBest(cs, 0, 1);
      d.Charge(cs[*pick].group, a);
      served1 += cs[*pick].group == 1;
      EXPECT_LE(d.deficit(1), kappa + a / 2 + 1e-12) << "kappa " << kappa << " step " << step;
    }
    // Over 1000 allocations group 1 got its half, within the bound.
    EXPECT_NEAR(served1, 500, kappa / a + 1.5) << kappa;
  }
}

}  // namespace
}  // namespace weft::policy::dagps
