// File: tests/policy/coffman_graham_test.cc
//
// The coffman-graham baseline: labels on hand-labelled DAGs (ties to the
// lower stage, lexicographic comparison of children's labels, a stage's
// tasks taking consecutive labels and its parents comparing the whole run),
// and a two-machine schedule where serving the highest label first finishes a
// chain before independent work and beats fifo. Schedule checker attached.
#include <string>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"
#include "policy/baseline/coffman_graham.h"

namespace weft::policy::testing {
namespace {

std::vector<uint64_t> Labels(const std::string& json) {
  auto w = ParseWorkload(json);
  EXPECT_TRUE(w.ok());
  if (!w.ok()) return {};
  const JobProgress progress(w->jobs[0]);
  const KnowledgeOptions options;
  const JobView view(JobId(0), w->jobs[0], progress, Knowledge::kNonClairvoyant, options);
  return baseline::CoffmanGrahamLabels(view);
}

std::string Dag(const std::string& stages) {
  return R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1}}]},
    "jobs": [{"name": "j", "stages": [)" + stages + "]}]}";
}

TEST(CoffmanGrahamPolicyTest, LabelsFromTheSinksUp) {
  // a -> c, b -> c, b -> d. Sinks c, d tie (empty keys): c = 1 (lower
  // stage), d = 2. Then a's key (1) beats b's (2, 1): a = 3, b = 4.
  EXPECT_EQ(Labels(Dag(R"({"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "c", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["a", "b"]},
      {"name": "d", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["b"]})")),
            std::vector<uint64_t>({3, 4, 1, 2}));
}

TEST(CoffmanGrahamPolicyTest, StageTasksTakeConsecutiveLabelsAndParentsCompareTheRun) {
  // Sinks x (3 tasks: labels 1-3) and y (1 task: 4). p -> x has key (3, 2,
  // 1), q -> y has (4): p first (3 < 4): p = 5, q = 6. r -> {x, y}: key
  // (4, 3, 2, 1) > q's (4) as a longer sequence with the same start: after q.
  EXPECT_EQ(Labels(Dag(R"({"name": "x", "tasks": 3, "duration": 1, "demand": {"cpu": 1}, "after": ["p", "r"]},
      {"name": "y", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["q", "r"]},
      {"name": "p", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "q", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "r", "tasks": 1, "duration": 1, "demand": {"cpu": 1}})")),
            std::vector<uint64_t>({1, 4, 5, 6, 7}));
}

// Two machines of 1 cpu, held by "warm" for [0, 1]; "dag" (arriving at 0.5)
// has independent sinks c0, c1 and a chain x -> y -> z, all 1 s tasks.
// Labels: c0 1, c1 2, z 3, y 4, x 5.
constexpr char kChain[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [
    {"name": "warm", "stages": [{"name": "w", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "dag", "arrival": 0.5, "stages": [
      {"name": "c0", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "c1", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "x", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "y", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["x"]},
      {"name": "z", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["y"]}]}]})";

TEST(CoffmanGrahamPolicyTest, HighestLabelFirstFinishesTheChainEarly) {
  // At 1: x and c1; at 2: c0 and y; z [3, 4]: the dag ends at 4 (optimal).
  const auto cg = RunPolicy(kChain, "coffman-graham");
  ASSERT_TRUE(cg.status.ok()) << cg.status;
  EXPECT_EQ(cg.Task("dag", 0, 2).start_us, Sec(1));
  EXPECT_EQ(cg.Task("dag", 0, 1).start_us, Sec(1));
  EXPECT_EQ(cg.Task("dag", 0, 0).start_us, Sec(2));
  EXPECT_EQ(cg.Task("dag", 0, 4).end_us, Sec(4));
  // fifo runs c0 and c1 first and ends at 5.
  const auto fifo = RunPolicy(kChain, "fifo");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("dag", 0, 4).end_us, Sec(5));
}

// One machine of 1 cpu held by "warm" for [0, 1]. "a" (one 1 s sink, label
// 1) arrives at 0.2, "b" (x -> y, labels 2 and 1) at 0.4.
constexpr char kTwoJobs[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [
    {"name": "warm", "stages": [{"name": "w", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "a", "arrival": 0.2, "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "b", "arrival": 0.4, "stages": [
      {"name": "x", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "y", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["x"]}]}]})";

TEST(CoffmanGrahamPolicyTest, AcrossJobsFifoOrByLabel) {
  // Default: the earlier job first: a at 1, x at 2.
  const auto fifo = RunPolicy(kTwoJobs, "coffman-graham");
  ASSERT_TRUE(fifo.status.ok()) << fifo.status;
  EXPECT_EQ(fifo.Task("a").start_us, Sec(1));
  EXPECT_EQ(fifo.Task("b", 0, 0).start_us, Sec(2));
  // across_jobs=label: x's label 2 beats a's 1: x at 1, a at 2.
  const auto label = RunPolicy(kTwoJobs, "coffman-graham", {"across_jobs=label"});
  ASSERT_TRUE(label.status.ok()) << label.status;
  EXPECT_EQ(label.Task("b", 0, 0).start_us, Sec(1));
  EXPECT_EQ(label.Task("a").start_us, Sec(2));
}

}  // namespace
}  // namespace weft::policy::testing
