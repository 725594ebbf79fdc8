// Tests of the streaming metrics: LogHistogram quantiles, critical paths,
// and RunMetrics's definitions (JCT, makespan, utilization = SE, UE,
// delay, locality, Jain's index) on hand-made records.
#include "metrics/run_metrics.h"

#include "gtest/gtest.h"
#include "metrics/critical_path.h"
#include "metrics/histogram.h"

namespace weft {
namespace {

TEST(LogHistogramTest, QuantilesWithinOnePercent) {
  LogHistogram h;
  for (int64_t v = 1; v <= 100000; ++v) h.Add(v);
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_DOUBLE_EQ(h.Mean(), 50000.5);
  for (double q : {0.01, 0.5, 0.95, 0.99}) {
    const double truth = q * 100000;
    EXPECT_NEAR(static_cast<double>(h.Quantile(q)), truth, truth * 0.01) << q;
  }
  EXPECT_EQ(h.Quantile(1.0), 100000);
}

TEST(LogHistogramTest, SmallValuesAreExactAndEmptyIsZero) {
  LogHistogram h;
  EXPECT_EQ(h.Quantile(0.5), 0);
  for (int64_t v : {3, 1, 2}) h.Add(v);
  EXPECT_EQ(h.Quantile(0.5), 2);
  EXPECT_EQ(h.Quantile(0.0), 1);
}

// A job a(2 tasks, 1 s and 3 s) -> b(1 s), and a(...) -> c(4 s): critical
// path = max(3 + 1, 3 + 4) = 7 s.
Workload DiamondWorkload() {
  Workload w;
  w.cluster.AddMachine("m0", RackId(0), *Resources::FromUnits({4, 8, 0, 0}));
  w.cluster.AddMachine("m1", RackId(1), *Resources::FromUnits({4, 8, 0, 0}));
  w.users = {"alice", "bob"};
  for (int j = 0; j < 2; ++j) {
    Job job;
    job.name = j == 0 ? "j0" : "j1";
    job.user = UserId(j);
    job.arrival_us = j * 1'000'000;
    Stage a{.name = "a", .num_tasks = 2, .duration_us = 0, .durations_us = {1'000'000, 3'000'000}};
    Stage b{.name = "b", .num_tasks = 1, .duration_us = 1'000'000};
    Stage c{.name = "c", .num_tasks = 1, .duration_us = 4'000'000};
    a.demand = *Resources::FromUnits({1, 2, 0, 0});
    a.usage = *Resources::FromUnits({0.5, 1, 0, 0});
    b.demand = c.demand = b.usage = c.usage = a.demand;
    a.children = {{1, EdgeKind::kBarrier}, {2, EdgeKind::kBarrier}};
    b.parents = c.parents = {{0, EdgeKind::kBarrier}};
    job.stages = {a, b, c};
    job.topo_order = {0, 1, 2};
    job.num_tasks = 4;
    w.jobs.push_back(job);
  }
  return w;
}

TEST(CriticalPathTest, LongestChainOfLongestTasks) {
  const Workload w = DiamondWorkload();
  EXPECT_EQ(LongestTaskUs(w.jobs[0].stages[0], w.cluster), 3'000'000);
  EXPECT_EQ(CriticalPathUs(w.jobs[0], w.cluster), 7'000'000);
}

TEST(CriticalPathTest, PhasesRunAloneOnTheFastestMachine) {
  Cluster cluster;
  cluster.AddMachine("slow", RackId(0), *Resources::FromUnits({1, 1, 0, 100}));
  cluster.AddMachine("fast", RackId(0), *Resources::FromUnits({1, 1, 0, 400}));
  const std::vector<Phase> phases = {{kNet, 200}, {kCpu, 1.5}};
  EXPECT_EQ(PhasesNominalUs(phases, cluster), 2'000'000);  // 200 MB at 400 MB/s + 1.5 core-s
}

AttemptRecord Record(uint32_t job, uint32_t stage, uint32_t index, TimeUs ready, TimeUs start, TimeUs end,
                     const Workload& w, Locality locality = Locality::kNone) {
  const Stage& s = w.jobs[job].stages[stage];
  return AttemptRecord{TaskRef{JobId(job), stage, index}, 0, MachineId(0), ready, start, end, Outcome::kOk,
                       s.demand, s.usage, locality, false};
}

TEST(RunMetricsTest, ComputesTheDefinitionsOnAHandMadeRun) {
  const Workload w = DiamondWorkload();
  RunMetrics m(w);
  // Job 0 runs on its critical path exactly: JCT 7 s, slowdown 1.
  m.OnAttemptEnd(Record(0, 0, 0, 0, 0, 1'000'000, w, Locality::kNode));
  m.OnAttemptEnd(Record(0, 0, 1, 0, 0, 3'000'000, w, Locality::kRemote));
  m.OnAttemptEnd(Record(0, 1, 0, 3'000'000, 3'000'000, 4'000'000, w));
  m.OnAttemptEnd(Record(0, 2, 0, 3'000'000, 3'000'000, 7'000'000, w));
  m.OnJobEnd(JobRecord{JobId(0), 0, 0, 7'000'000, true});
  // Job 1 (arrives at 1 s) waits 2 s at first: JCT 9 s, ends at 10 s.
  m.OnAttemptEnd(Record(1, 0, 0, 1'000'000, 3'000'000, 4'000'000, w));
  m.OnAttemptEnd(Record(1, 0, 1, 1'000'000, 3'000'000, 6'000'000, w));
  m.OnAttemptEnd(Record(1, 1, 0, 6'000'000, 6'000'000, 7'000'000, w));
  m.OnAttemptEnd(Record(1, 2, 0, 6'000'000, 6'000'000, 10'000'000, w));
  m.OnJobEnd(JobRecord{JobId(1), 1'000'000, 3'000'000, 10'000'000, true});
  m.OnRunEnd(10'000'000);
  const RunSummary& s = m.summary();
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.tasks, 8u);
  EXPECT_DOUBLE_EQ(s.makespan, 10.0);  // last end 10 s - first arrival 0
  EXPECT_DOUBLE_EQ(s.avg_jct, 8.0);
  EXPECT_DOUBLE_EQ(s.median_jct, 7.0);
  EXPECT_DOUBLE_EQ(s.p95_jct, 9.0);
  // Allocated cpu: 18 task-seconds x 1 core over 8 cores x 10 s.
  EXPECT_DOUBLE_EQ(s.utilization[kCpu], 18.0 / 80.0);
  // Stage a uses half its cpu for 8 of those 18 s: used 14, UE 14/18.
  EXPECT_DOUBLE_EQ(s.ue[kCpu], 14.0 / 18.0);
  // Delays: 0 x 6 attempts, 2 s x 2 -> mean 0.5 s.
  EXPECT_DOUBLE_EQ(s.delay_mean, 0.5);
  EXPECT_DOUBLE_EQ(s.locality[static_cast<size_t>(Locality::kNode)], 1.0 / 8);
  // Slowdowns 1 (alice) and 9/7 (bob): Jain = (1 + 9/7)^2 / (2 (1 + 81/49)).
  const double x = 9.0 / 7.0;
  EXPECT_NEAR(s.jain_fairness, (1 + x) * (1 + x) / (2 * (1 + x * x)), 1e-12);
}

TEST(RunMetricsTest, ContainersCountOnceForAsLongAsTheyAreHeld) {
  const Workload w = DiamondWorkload();
  RunMetrics m(w);
  // A 4-core container held 0..10 s runs one 1-core task for 1 s inside it.
  AttemptRecord inside = Record(0, 0, 0, 0, 0, 1'000'000, w);
  inside.in_container = true;
  m.OnAttemptEnd(inside);
  m.OnContainerEnd(ContainerRecord{JobId(0), MachineId(0), 0, 10'000'000, *Resources::FromUnits({4, 4, 0, 0})});
  m.OnJobEnd(JobRecord{JobId(0), 0, 0, 10'000'000, true});
  m.OnRunEnd(10'000'000);
  // Allocated 40 core-seconds of 8 cores x 10 s of makespan (the job ends
  // when it gives the container back); used 0.5 core-second of it.
  EXPECT_DOUBLE_EQ(m.summary().makespan, 10.0);
  EXPECT_DOUBLE_EQ(m.summary().utilization[kCpu], 40.0 / 80.0);
  EXPECT_DOUBLE_EQ(m.summary().ue[kCpu], 0.5 / 40.0);
}

TEST(RunMetricsTest, FailedJobsAreCountedNotAveraged) {
  const Workload w = DiamondWorkload();
  RunMetrics m(w);
  m.OnAttemptEnd(Record(0, 0, 0, 0, 0, 1'000'000, w));
  m.OnJobEnd(JobRecord{JobId(0), 0, 0, 1'000'000, false});
  m.OnRunEnd(1'000'000);
  EXPECT_EQ(m.summary().jobs_failed, 1u);
  EXPECT_DOUBLE_EQ(m.summary().avg_jct, 0.0);
}

}  // namespace
}  // namespace weft
