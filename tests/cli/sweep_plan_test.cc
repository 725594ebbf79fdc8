// Unit tests of the plan of `weft sweep` (cli/sweep_plan.h): which
// configurations run, in which order, and the statistics of its table.
#include "cli/sweep_plan.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SweepPlanTest, SeedsAsRangeListOrDefault) {
  EXPECT_THAT(*ParseSeeds("1..5", 9), ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(*ParseSeeds("7,3,7", 9), ElementsAre(7, 3, 7));
  EXPECT_THAT(*ParseSeeds("", 9), ElementsAre(9));
  EXPECT_THAT(*ParseSeeds("4..4", 9), ElementsAre(4));
  for (const char* bad : {"5..1", "1..", "a", "1,,2", "-1", "1..x", "0..100000"}) {
    EXPECT_FALSE(ParseSeeds(bad, 1).ok()) << bad;
  }
}

TEST(SweepPlanTest, DashedRangeSaysHowToWriteIt) {
  const auto dashed = ParseSeeds("1-5", 1);
  ASSERT_FALSE(dashed.ok());
  EXPECT_THAT(std::string(dashed.status().message()), HasSubstr("write a range as 1..5"));
  EXPECT_FALSE(ParseSeeds("-5", 1).ok());  // not a range: a bad seed, as before
}

TEST(SweepPlanTest, CrossesPoliciesAndValuesInOrder) {
  auto plan = PlanSweep({"/a/w.json", "/b/w.json"}, "fifo,sparrow",
                        {"sparrow:probe_ratio=1,2", "estimate_noise=0,0.5"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<std::string> dirs;
  for (const SweepConfig& c : *plan) dirs.push_back(c.dir);
  EXPECT_THAT(dirs, ElementsAre("w/fifo/estimate_noise=0", "w/fifo/estimate_noise=0.5",
                                "w/sparrow/probe_ratio=1,estimate_noise=0", "w/sparrow/probe_ratio=1,estimate_noise=0.5",
                                "w/sparrow/probe_ratio=2,estimate_noise=0", "w/sparrow/probe_ratio=2,estimate_noise=0.5",
                                "w-2/fifo/estimate_noise=0", "w-2/fifo/estimate_noise=0.5",
                                "w-2/sparrow/probe_ratio=1,estimate_noise=0",
                                "w-2/sparrow/probe_ratio=1,estimate_noise=0.5",
                                "w-2/sparrow/probe_ratio=2,estimate_noise=0",
                                "w-2/sparrow/probe_ratio=2,estimate_noise=0.5"));
  EXPECT_EQ((*plan)[3].workload, 0u);
  EXPECT_EQ((*plan)[6].workload, 1u);
  EXPECT_THAT((*plan)[3].params, ElementsAre("probe_ratio=1", "estimate_noise=0.5"));
}

TEST(SweepPlanTest, UnscopedKeyGoesOnlyToPoliciesThatHaveIt) {
  auto plan = PlanSweep({"w.json"}, "fifo,sparrow", {"probe_ratio=1,3"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->size(), 3u);
  EXPECT_EQ((*plan)[0].label, "");
  EXPECT_EQ((*plan)[0].dir, "w/fifo");
  EXPECT_EQ((*plan)[2].label, "probe_ratio=3");
}

TEST(SweepPlanTest, RefusesWhatCannotRun) {
  EXPECT_THAT(std::string(PlanSweep({"w.json"}, "fifo,nope", {}).status().message()), HasSubstr("nope"));
  EXPECT_THAT(std::string(PlanSweep({"w.json"}, "fifo", {"probe_ratio=1"}).status().message()),
              HasSubstr("no listed policy has \"probe_ratio\""));
  EXPECT_FALSE(PlanSweep({"w.json"}, "sparrow", {"probe_ratio=-5"}).ok());
  EXPECT_FALSE(PlanSweep({"w.json"}, "fifo", {"estimate_noise"}).ok());
  EXPECT_FALSE(PlanSweep({"w.json"}, "fifo", {"estimate_noise="}).ok());
}

TEST(SweepPlanTest, MeanAndStudentInterval) {
  const MeanCi one = MeanAndCi95({4});
  EXPECT_EQ(one.mean, 4);
  EXPECT_EQ(CiText(one), "");
  // n = 4, s = sqrt(5/3), t(0.975, 3) = 3.182.
  const MeanCi four = MeanAndCi95({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(four.mean, 2.5);
  EXPECT_NEAR(four.half_width, 3.182 * std::sqrt(5.0 / 3.0) / 2, 1e-12);
  EXPECT_EQ(MeanAndCi95({3, 3, 3}).half_width, 0);
  EXPECT_EQ(CiText(MeanAndCi95({3, 3, 3})), "0");
  // Equal values that do not sum exactly in floating point stay exact.
  const MeanCi same = MeanAndCi95({21.728, 21.728, 21.728});
  EXPECT_EQ(same.mean, 21.728);
  EXPECT_EQ(same.half_width, 0);
}

}  // namespace
}  // namespace weft::cli
