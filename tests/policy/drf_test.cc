// Tests for the drf policy (policy/baseline/drf): the worked example of the
// DRF paper (Ghodsi et al., NSDI'11, section 4).
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

using testing::RunPolicy;
using testing::Sec;

// A cluster of 9 CPUs and 18 GB; user A's tasks need <1 CPU, 4 GB>, user
// B's <3 CPU, 1 GB>; both have more tasks than fit, all ready at 0.
constexpr std::string_view kPaperExample = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 9, "mem": 18}}]},
  "jobs": [
    {"name": "ja", "user": "A", "stages": [{"name": "s", "tasks": 10, "duration": 10, "demand": {"cpu": 1, "mem": 4}}]},
    {"name": "jb", "user": "B", "stages": [{"name": "s", "tasks": 10, "duration": 10, "demand": {"cpu": 3, "mem": 1}}]}
  ]})";

TEST(DrfPolicyTest, PaperExampleGivesAThreeTasksAndBTwo) {
  // Progressive filling equalizes dominant shares: A gets <3 CPU, 12 GB>
  // (2/3 of memory), B gets <6 CPU, 2 GB> (2/3 of the CPUs).
  const auto run = RunPolicy(kPaperExample, "drf");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("A", Sec(5)), 3);
  EXPECT_EQ(run.Running("B", Sec(5)), 2);
  // Each wave ends together and is refilled the same way.
  EXPECT_EQ(run.Running("A", Sec(15)), 3);
  EXPECT_EQ(run.Running("B", Sec(15)), 2);
}

TEST(DrfPolicyTest, CpuFairShareSplitsThePaperExampleDifferently) {
  // The same machinery with the cpu-only share: A's tasks look cheap (1
  // core), so A takes 4 (<4 CPU, 16 GB>) and B fits only 1. The share
  // function is what makes DRF.
  const auto run = RunPolicy(kPaperExample, "fair");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("A", Sec(5)), 4);
  EXPECT_EQ(run.Running("B", Sec(5)), 1);
}

TEST(DrfPolicyTest, WeightScalesTheDominantShare) {
  // A's job weighs 3 here, so each A task adds (4/18)/3 = .074. Filling:
  // A .074, B .333, then A .148, .222, .296 (4 tasks, 16 GB); A is still
  // the neediest but a fifth task needs 21 GB, and a second B task 10 CPUs.
  // A 4, B 1 (unweighted: A 3, B 2).
  std::string doc(kPaperExample);
  doc.replace(doc.find(R"("user": "A",)"), 12, R"("user": "A", "weight": 3,)");
  const auto run = RunPolicy(doc, "drf");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_EQ(run.Running("A", Sec(5)), 4);
  EXPECT_EQ(run.Running("B", Sec(5)), 1);
}

}  // namespace
}  // namespace weft::policy
