// File: tests/metrics/lower_bounds_test.cc
//
// The DAGPS lower bounds (Figure 9) on hand-computed DAGs: each formula on
// its own, the barrier partitions (finest split; pipelined edges do not cut),
// NewLB above max(CPLen, TWork) where the partition or ModCP idea applies,
// task-level critical paths through pipelined edges, multi-resource TWork,
// tasks made of phases, rounding up to a microsecond, and the workload-level
// makespan bound.
#include "metrics/lower_bounds.h"

#include <string>

#include "core/status.h"
#include "gtest/gtest.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + 0.5); }

Workload Parse(const std::string& json) {
  auto w = ParseWorkload(json);
  EXPECT_TRUE(w.ok()) << StatusMessage(w.status());
  return w.ok() ? std::move(*w) : Workload{};
}

JobBounds BoundsOf(const Workload& w, size_t job = 0) {
  return ComputeJobBounds(w.jobs[job], BoundCapacity::Of(w.cluster));
}

std::string OneJob(const std::string& cluster, const std::string& stages) {
  return R"({"weft": 1, "cluster": {"machines": [)" + cluster + R"(]}, "jobs": [{"name": "j", "stages": [)" +
         stages + "]}]}";
}

TEST(LowerBoundsTest, ChainOfTwoBarrierStages) {
  // a: 2 x 2 s (1 cpu), then b: 1 x 3 s (2 cpu), one machine of 2 cpu.
  // CPLen 2 + 3; TWork (2*2*1 + 3*2) / 2 = 5; two partitions 2 + 3.
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 2, "mem": 1}})",
                                  R"({"name": "a", "tasks": 2, "duration": 2, "demand": {"cpu": 1}},
                                     {"name": "b", "tasks": 1, "duration": 3, "demand": {"cpu": 2}, "after": ["a"]})"));
  const JobBounds b = BoundsOf(w);
  EXPECT_EQ(b.cplen_us, Sec(5));
  EXPECT_EQ(b.twork_us, Sec(5));
  EXPECT_EQ(b.modcp_us, Sec(5));
  EXPECT_EQ(b.newlb_us, Sec(5));
  EXPECT_EQ(b.partitions, 2u);
}

TEST(LowerBoundsTest, PartitionsAddChainAndWorkOfIndependentGroup) {
  // Section 6: "a chain of tasks followed by a group of independent tasks":
  // a: 1 x 4 s, then b: 4 x 1 s, all 1 cpu, on 2 cpu. CPLen 5, TWork 4,
  // NewLB = 4 (part a) + 2 (part b: 4 cpu-s on 2 cpu) = 6, the optimum.
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 2, "mem": 1}})",
                                  R"({"name": "a", "tasks": 1, "duration": 4, "demand": {"cpu": 1}},
                                     {"name": "b", "tasks": 4, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]})"));
  const JobBounds b = BoundsOf(w);
  EXPECT_EQ(b.cplen_us, Sec(5));
  EXPECT_EQ(b.twork_us, Sec(4));
  EXPECT_EQ(b.partitions, 2u);
  EXPECT_EQ(b.newlb_us, Sec(6));
}

TEST(LowerBoundsTest, ModCpReplacesOneStageOfAPathWithItsWork) {
  // a: 4 x 1 s then b: 1 x 1 s; c: an independent 0.1 s root, so nothing
  // partitions. On 2 cpu: CPLen 2, TWork 5.1 / 2 = 2.55, ModCP = TWork_a (2)
  // + shortest b (1) = 3 = NewLB (and the optimum).
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 2, "mem": 1}})",
                                  R"({"name": "a", "tasks": 4, "duration": 1, "demand": {"cpu": 1}},
                                     {"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]},
                                     {"name": "c", "tasks": 1, "duration": 0.1, "demand": {"cpu": 1}})"));
  const JobBounds b = BoundsOf(w);
  EXPECT_EQ(b.partitions, 1u);
  EXPECT_EQ(b.cplen_us, Sec(2));
  EXPECT_EQ(b.twork_us, Sec(2.55));
  EXPECT_EQ(b.modcp_us, Sec(3));
  EXPECT_EQ(b.newlb_us, Sec(3));
}

TEST(LowerBoundsTest, ModCpUsesShortestTasksOffTheFullStage) {
  // a: durations 1 and 5; b after a: durations 2 and 4 (barrier); 10 cpu.
  // ModCP: s = a: max(TWork_a 0.6, CPLen_a 5) + min b 2 = 7; s = b: min a 1 +
  // 4 = 5. CPLen = 5 + 4 = 9 (barrier waits for the longest).
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 10, "mem": 1}})",
                                  R"({"name": "a", "tasks": 2, "duration": 1, "durations": [1, 5], "demand": {"cpu": 1}},
                                     {"name": "b", "tasks": 2, "duration": 1, "durations": [2, 4], "demand": {"cpu": 1},
                                      "after": ["a"]})"));
  const JobBounds b = BoundsOf(w);
  EXPECT_EQ(b.cplen_us, Sec(9));
  EXPECT_EQ(b.modcp_us, Sec(7));
  EXPECT_EQ(b.twork_us, Sec(1.2));
  EXPECT_EQ(b.newlb_us, Sec(9));  // two partitions: 5 + 4
}

TEST(LowerBoundsTest, PipelinedEdgesAreTaskLevelAndDoNotPartition) {
  // a: durations 1, 3; b pipelined after a: 3, 1. Task i of b waits only for
  // task i of a: CPLen = max(1 + 3, 3 + 1) = 4, not 3 + 3.
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 10, "mem": 1}})",
                                  R"({"name": "a", "tasks": 2, "duration": 1, "durations": [1, 3], "demand": {"cpu": 1}},
                                     {"name": "b", "tasks": 2, "duration": 1, "durations": [3, 1], "demand": {"cpu": 1},
                                      "after": [{"stage": "a", "kind": "pipelined"}]})"));
  const JobBounds b = BoundsOf(w);
  EXPECT_EQ(b.cplen_us, Sec(4));
  EXPECT_EQ(b.partitions, 1u);
  EXPECT_EQ(b.modcp_us, Sec(4));
  EXPECT_EQ(b.newlb_us, Sec(4));
  EXPECT_EQ(BarrierPartitions(w.jobs[0]), std::vector<uint32_t>({0}));
}

TEST(LowerBoundsTest, DiamondSplitsIntoThreeParts) {
  // a -> {b, c} -> d with barriers: a | b c | d. Adding an independent root
  // e joins everything into one part.
  const std::string diamond = R"({"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "b", "tasks": 1, "duration": 2, "demand": {"cpu": 1}, "after": ["a"]},
      {"name": "c", "tasks": 1, "duration": 3, "demand": {"cpu": 1}, "after": ["a"]},
      {"name": "d", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["b", "c"]})";
  const std::string cluster = R"({"name": "m", "capacity": {"cpu": 1, "mem": 1}})";
  const Workload w = Parse(OneJob(cluster, diamond));
  EXPECT_EQ(BarrierPartitions(w.jobs[0]).size(), 3u);
  // One cpu: NewLB = 1 + (2 + 3) + 1 = 7 = TWork.
  EXPECT_EQ(BoundsOf(w).newlb_us, Sec(7));
  const Workload w2 = Parse(OneJob(cluster, diamond + R"(, {"name": "e", "tasks": 1, "duration": 1, "demand": {"cpu": 1}})"));
  EXPECT_EQ(BarrierPartitions(w2.jobs[0]).size(), 1u);
  // b -> d but c independent of d: the cut after {a, b, c} fails too.
  const Workload w3 = Parse(OneJob(cluster, R"({"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
      {"name": "b", "tasks": 1, "duration": 2, "demand": {"cpu": 1}, "after": ["a"]},
      {"name": "c", "tasks": 1, "duration": 3, "demand": {"cpu": 1}, "after": ["a"]},
      {"name": "d", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["b"]})"));
  EXPECT_EQ(BarrierPartitions(w3.jobs[0]), std::vector<uint32_t>({0, 1}));
}

TEST(LowerBoundsTest, TWorkIsTheMostLoadedResource) {
  // 3 tasks of 1 s, each 1 cpu and 4 GB, on 4 cpu / 4 GB: memory allows one
  // at a time: TWork = 3 s (cpu alone would say 0.75 s).
  const Workload w = Parse(OneJob(R"({"name": "m", "capacity": {"cpu": 4, "mem": 4}})",
                                  R"({"name": "a", "tasks": 3, "duration": 1, "demand": {"cpu": 1, "mem": 4}})"));
  EXPECT_EQ(BoundsOf(w).twork_us, Sec(3));
  EXPECT_EQ(BoundsOf(w).newlb_us, Sec(3));
}

TEST(LowerBoundsTest, PhasesCountAtTheFastestBandwidthAndBoundsRoundUp) {
  // A task of a 2 core-second cpu phase and 100 MB over the fastest 50 MB/s
  // net: 4 s. A 1 us task of 1 cpu on 3 cpu: TWork 1/3 us, rounded up to 1.
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [
      {"name": "slow", "capacity": {"cpu": 3, "mem": 1, "disk": 1, "net": 10}},
      {"name": "fast", "capacity": {"cpu": 3, "mem": 1, "disk": 1, "net": 50}}]},
    "jobs": [{"name": "p", "stages": [{"name": "a", "tasks": 1, "demand": {"cpu": 1},
               "phases": [{"resource": "cpu", "work": 2}, {"resource": "net", "work": 100}]}]},
             {"name": "t", "stages": [{"name": "a", "tasks": 1, "duration": 0.000001, "demand": {"cpu": 1}}]}]})");
  EXPECT_EQ(BoundsOf(w, 0).cplen_us, Sec(4));
  EXPECT_EQ(MinTaskUs(w.jobs[0].stages[0], 0, BoundCapacity::Of(w.cluster).fastest), Sec(4));
  EXPECT_EQ(BoundsOf(w, 1).twork_us, 1);
  EXPECT_EQ(BoundsOf(w, 1).newlb_us, 1);
}

TEST(LowerBoundsTest, WorkloadBoundTakesLatestJobBoundOrTotalWork) {
  // Two one-task jobs of 5 s and 1 cpu on 2 cpu, arriving at 1 and 11: the
  // second cannot end before 16, so the makespan (from 1) is at least 15.
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2}}]},
    "jobs": [{"name": "x", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 5, "demand": {"cpu": 1}}]},
             {"name": "y", "arrival": 11, "stages": [{"name": "a", "tasks": 1, "duration": 5, "demand": {"cpu": 1}}]}]})");
  const BoundCapacity cap = BoundCapacity::Of(w.cluster);
  WorkloadBound bound(cap.capacity);
  for (const Job& j : w.jobs) bound.Add(j, ComputeJobBounds(j, cap));
  EXPECT_EQ(bound.MakespanLowerBoundUs(), Sec(15));
  // Ten 5 s jobs of 2 cpu all at 0: total work 100 cpu-s / 2 cpu = 50 s.
  std::string jobs;
  for (int i = 0; i < 10; ++i) {
    jobs += (i ? "," : "") + std::string(R"({"name": "j)") + std::to_string(i) +
            R"(", "stages": [{"name": "a", "tasks": 1, "duration": 5, "demand": {"cpu": 2}}]})";
  }
  const Workload many = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2}}]},
    "jobs": [)" + jobs + "]}");
  WorkloadBound total(cap.capacity);
  for (const Job& j : many.jobs) total.Add(j, ComputeJobBounds(j, cap));
  EXPECT_EQ(total.MakespanLowerBoundUs(), Sec(50));
}

}  // namespace
}  // namespace weft
