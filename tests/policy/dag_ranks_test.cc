// File: tests/policy/dag_ranks_test.cc
//
// policy/common/dag_ranks.h on hand-made DAGs: depth (longest distance from a
// root), stage durations (longest task) and remaining critical path, as a
// clairvoyant and as a non-clairvoyant policy sees them; the order of
// RankedKey; and that StageRankCache computes a job's ranks once.
#include "policy/common/dag_ranks.h"

#include <string_view>
#include <vector>

#include "core/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "trace/workload_reader.h"

namespace weft::policy {
namespace {

using ::testing::ElementsAre;

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + 0.5); }

// JobFixture: job 0 of a parsed workload with its progress, and views of it.
struct JobFixture {
  Workload workload;
  std::vector<JobProgress> progress;
  KnowledgeOptions options;

  explicit JobFixture(std::string_view text) {
    auto w = ParseWorkload(text);
    EXPECT_TRUE(w.ok()) << StatusMessage(w.status());
    workload = std::move(*w);
    for (const Job& j : workload.jobs) progress.emplace_back(j);
  }
  JobView View(Knowledge k, uint32_t job = 0) const {
    return JobView(JobId(job), workload.jobs[job], progress[job], k, options);
  }
};

// Diamond a -> {b, c} -> d. b's tasks take 3 s and 5 s; the others one
// duration each. Stages are listed out of topological order on purpose.
constexpr char kDiamond[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "d", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["b", "c"]},
    {"name": "b", "tasks": 2, "duration": 1, "durations": [3, 5], "demand": {"cpu": 1}, "after": ["a"]},
    {"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
    {"name": "c", "tasks": 3, "duration": 2, "demand": {"cpu": 1}, "after": ["a"]}]}]})";

TEST(DagRanksTest, DiamondDepths) {
  JobFixture f(kDiamond);
  // Stage indices: d=0, b=1, a=2, c=3.
  EXPECT_THAT(StageDepths(f.View(Knowledge::kNonClairvoyant)), ElementsAre(2, 1, 0, 1));
}

TEST(DagRanksTest, DiamondDurationsAreTheLongestTask) {
  JobFixture f(kDiamond);
  EXPECT_THAT(StageDurations(f.View(Knowledge::kClairvoyant)), ElementsAre(Sec(1), Sec(5), Sec(1), Sec(2)));
}

TEST(DagRanksTest, DiamondRemainingCriticalPaths) {
  JobFixture f(kDiamond);
  // d = 1; b = 5 + 1 = 6; c = 2 + 1 = 3; a = 1 + max(6, 3) = 7.
  const DagRanks r = ComputeDagRanks(f.View(Knowledge::kClairvoyant));
  EXPECT_THAT(r.remaining_cp, ElementsAre(Sec(1), Sec(6), Sec(1 + 6), Sec(3)));
  EXPECT_THAT(r.depth, ElementsAre(2, 1, 0, 1));
}

TEST(DagRanksTest, NonClairvoyantCriticalPathCountsDefaultDurations) {
  JobFixture f(kDiamond);
  f.options.default_duration_us = Sec(2);
  // Nothing known or learned: every stage lasts the default, 2 s.
  const DagRanks r = ComputeDagRanks(f.View(Knowledge::kNonClairvoyant));
  EXPECT_THAT(r.remaining_cp, ElementsAre(Sec(2), Sec(4), Sec(6), Sec(4)));
}

TEST(DagRanksTest, CriticalPathFollowsLearnedDurations) {
  JobFixture f(kDiamond);
  // Two finished attempts of c (index 3) taught 4 s on average.
  f.progress[0].stages[3].learned_count = 2;
  f.progress[0].stages[3].learned_total_us = Sec(8);
  const DagRanks r = ComputeDagRanks(f.View(Knowledge::kNonClairvoyant));
  // Other stages fall back to the job's mean (4 s): d 4, b 8, c 8, a 12.
  EXPECT_THAT(r.remaining_cp, ElementsAre(Sec(4), Sec(8), Sec(12), Sec(8)));
}

// Chain a -> b -> c plus a shortcut a -> c: c's depth is its longest distance
// from the root (2), not its shortest (1), so it is deeper than its parent b.
constexpr char kChain[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 1, "duration": 2, "demand": {"cpu": 1}},
    {"name": "b", "tasks": 4, "duration": 3, "demand": {"cpu": 1}, "after": ["a"]},
    {"name": "c", "tasks": 1, "duration": 0.5, "demand": {"cpu": 1}, "after": ["b", "a"]}]}]})";

TEST(DagRanksTest, ChainDepthIsLongestDistanceFromRoot) {
  JobFixture f(kChain);
  EXPECT_THAT(StageDepths(f.View(Knowledge::kClairvoyant)), ElementsAre(0, 1, 2));
}

TEST(DagRanksTest, ChainRemainingCriticalPaths) {
  JobFixture f(kChain);
  // c = 0.5; b = 3 + 0.5; a = 2 + 3.5 (via b, not the 0.5 shortcut).
  EXPECT_THAT(ComputeDagRanks(f.View(Knowledge::kClairvoyant)).remaining_cp,
              ElementsAre(Sec(5.5), Sec(3.5), Sec(0.5)));
}

TEST(DagRanksTest, RemainingCriticalPathsUseTheGivenDurations) {
  JobFixture f(kChain);
  const std::vector<TimeUs> durations = {10, 20, 30};
  EXPECT_THAT(RemainingCriticalPaths(f.View(Knowledge::kClairvoyant), durations), ElementsAre(60, 50, 30));
}

// Two jobs: "early" (priority 0, arrival 1) and "urgent" (priority 5, arrival 2).
constexpr char kTwoJobs[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "early", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "urgent", "arrival": 2, "priority": 5,
     "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(DagRanksTest, RankedKeyOrdersByRankThenPriorityThenArrival) {
  JobFixture f(kTwoJobs);
  const JobView early = f.View(Knowledge::kNonClairvoyant, 0);
  const JobView urgent = f.View(Knowledge::kNonClairvoyant, 1);
  // The rank decides first, whatever the priority.
  EXPECT_LT(RankedKey(0, early, 0), RankedKey(1, urgent, 0));
  EXPECT_LT(RankedKey(-7, urgent, 0), RankedKey(-3, early, 0));
  // Equal ranks: higher priority first, although it arrived later.
  EXPECT_LT(RankedKey(3, urgent, 0), RankedKey(3, early, 0));
  // Same job and rank: lower stage first.
  EXPECT_LT(RankedKey(3, early, 0), RankedKey(3, early, 1));
}

TEST(DagRanksTest, RankedKeyBreaksPriorityTiesByArrival) {
  JobFixture f(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [
      {"name": "late", "arrival": 9, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
      {"name": "soon", "arrival": 3, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  EXPECT_LT(RankedKey(0, f.View(Knowledge::kNonClairvoyant, 1), 0),
            RankedKey(0, f.View(Knowledge::kNonClairvoyant, 0), 0));
}

TEST(DagRanksTest, RankedKeyIsTheRankThenTheWholeFifoKey) {
  // Priorities beyond 2^15 used to be clamped into a packed field and tie;
  // with four key fields nothing is packed but job and stage.
  JobFixture f(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [
      {"name": "high", "arrival": 9, "priority": 50000,
       "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
      {"name": "higher", "arrival": 9, "priority": 60000,
       "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  const JobView high = f.View(Knowledge::kNonClairvoyant, 0);
  const JobView higher = f.View(Knowledge::kNonClairvoyant, 1);
  const OrderKey fifo = FifoKey(high, 0);
  EXPECT_EQ(RankedKey(4, high, 0), (OrderKey{4, fifo[0], fifo[1], fifo[2]}));
  EXPECT_LT(RankedKey(4, higher, 0), RankedKey(4, high, 0));
}

TEST(DagRanksTest, StageRankCacheComputesEachJobOnce) {
  JobFixture f(kDiamond);
  int calls = 0;
  StageRankCache cache([&calls](const JobView& job) {
    ++calls;
    const std::vector<uint32_t> d = StageDepths(job);
    return std::vector<int64_t>(d.begin(), d.end());
  });
  const JobView view = f.View(Knowledge::kNonClairvoyant);
  EXPECT_EQ(cache.Rank(view, 0), 2);
  EXPECT_EQ(cache.Rank(view, 2), 0);
  EXPECT_EQ(cache.Rank(view, 3), 1);
  EXPECT_EQ(calls, 1);
  cache.Forget(view.id());
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.Rank(view, 1), 1);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace weft::policy
