// File: tests/policy/dagps/builder_test.cc
//
// DAGPS's offline builder (001_a7e14c78d79bdb00.txt, sections 4.1-4.4):
// LongScore, FragScore and the closure on the worked example of section 2.2 /
// Fig. 2 (reconstructed, see test_inputs.h), where the plan must equal OPT;
// the closure rules on a DAG with a path between two troublesome stages; the
// four subset orders each feasible (no child before its parent, capacities
// respected); barrier partitions; and, as a property, a valid plan for every
// job of random workloads (trace/random_workload.h).
#include <algorithm>
#include <vector>

#include "gtest/gtest.h"
#include "model/workload.h"
#include "policy/dagps/builder.h"
#include "policy/dagps/troublesome.h"
#include "test_inputs.h"
#include "trace/random_workload.h"

namespace weft::policy::dagps::testing {
namespace {

TEST(DagpsScoresTest, LongAndFragScoresOfFig2) {
  const PlanInput in = Fig2Example();
  const std::vector<double> l = LongScores(in);
  EXPECT_DOUBLE_EQ(l[0], 1.0);
  EXPECT_DOUBLE_EQ(l[1], 0.01);
  EXPECT_DOUBLE_EQ(l[2], 0.96);
  EXPECT_DOUBLE_EQ(l[3], 0.01);
  EXPECT_DOUBLE_EQ(l[4], 0.98);
  // One task alone on the space: TWork / its own duration = its dominant
  // demand.
  const std::vector<double> f = FragScores(in);
  EXPECT_NEAR(f[0], 0.80, 1e-9);
  EXPECT_NEAR(f[1], 0.60, 1e-9);
  EXPECT_NEAR(f[2], 0.80, 1e-9);
  EXPECT_NEAR(f[3], 0.45, 1e-9);
  EXPECT_NEAR(f[4], 0.10, 1e-9);
}

TEST(DagpsScoresTest, FragScoreIsLowForAStageThatPacksBadly) {
  // Three tasks of cpu 0.6 on one machine of cpu 1: they run one at a time,
  // 3 s, while TWork is 1.8 s: FragScore 0.6. Five tasks of cpu 0.5: 3 s
  // for 2.5 s of work: 0.8333.
  PlanInput in;
  in.machines = {Units(1, 1)};
  AddStage(in, 3, 1, Units(0.6, 0));
  AddStage(in, 5, 1, Units(0.5, 0));
  in.ComputeTopoOrder();
  const std::vector<double> f = FragScores(in);
  EXPECT_NEAR(f[0], 0.6, 1e-9);
  EXPECT_NEAR(f[1], 2.5 / 3, 1e-9);
}

TEST(DagpsClosureTest, Fig2LongTasksAreTroublesomeAndTheirParentsP) {
  const PlanInput in = Fig2Example();
  const Reachability reach(in);
  const std::vector<uint8_t> d = Divide(reach, {1, 0, 1, 0, 1});
  EXPECT_EQ(d, (std::vector<uint8_t>{kT, kP, kT, kP, kT}));
  // The candidates include exactly this division (l in (0.01, 0.96], f < 0.45).
  const auto candidates = CandidateDivisions(in, reach, 0.1);
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), d), candidates.end());
  // f = 1 always yields T = everything.
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), std::vector<uint8_t>(5, kT)), candidates.end());
  // No duplicates.
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (size_t j = i + 1; j < candidates.size(); ++j) EXPECT_NE(candidates[i], candidates[j]);
  }
}

// a -> b -> c -> d, a -> e, x (alone), c -> f.
PlanInput Closure() {
  PlanInput in;
  in.machines = {Units(4, 4)};
  for (int i = 0; i < 7; ++i) AddStage(in, 2, 1 + i, Units(1, 1));
  // 0=a 1=b 2=c 3=d 4=e 5=x 6=f
  in.AddEdge(0, 1);
  in.AddEdge(1, 2);
  in.AddEdge(2, 3);
  in.AddEdge(0, 4);
  in.AddEdge(2, 6);
  in.ComputeTopoOrder();
  return in;
}

TEST(DagpsClosureTest, TasksOnAPathBetweenTroublesomeOnesJoinT) {
  const PlanInput in = Closure();
  const Reachability reach(in);
  // T = {a, c}: b lies between them -> T; d, e, f are descendants -> C; x
  // is unrelated -> O; nothing is an ancestor only.
  EXPECT_EQ(Divide(reach, {1, 0, 1, 0, 0, 0, 0}), (std::vector<uint8_t>{kT, kT, kT, kC, kC, kO, kC}));
  // T = {c}: a and b are its ancestors -> P.
  EXPECT_EQ(Divide(reach, {0, 0, 1, 0, 0, 0, 0}), (std::vector<uint8_t>{kP, kP, kT, kC, kO, kO, kC}));
}

TEST(DagpsBuilderTest, EveryOrderOfEveryCandidateIsFeasible) {
  for (const PlanInput& in : {Fig2Example(), Closure()}) {
    const Reachability reach(in);
    for (const auto& division : CandidateDivisions(in, reach, 0.1)) {
      auto tried = TrySubsetOrders(in, division);
      ASSERT_TRUE(tried.ok()) << tried.status();
      for (const OrderResult& r : *tried) {
        EXPECT_TRUE(CheckPlan(in, r.state).ok()) << r.order << ": " << CheckPlan(in, r.state);
      }
    }
  }
}

TEST(DagpsBuilderTest, Fig2PlanIsOptimal) {
  const PlanInput in = Fig2Example();
  auto schedule = BuildSchedule(in);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  ASSERT_TRUE(CheckSchedule(in, *schedule).ok());
  // OPT: the two 1 s parents one after the other, then t0, t2, t4 together.
  EXPECT_EQ(schedule->makespan, S(102));
  EXPECT_EQ(schedule->start[1] + S(1) <= schedule->start[2], true);
  EXPECT_EQ(schedule->start[0], schedule->start[2]);
  EXPECT_EQ(schedule->start[0], schedule->start[4]);
  // The parents come first in the preferred order.
  EXPECT_GT(schedule->pri_score[1], schedule->pri_score[0]);
  EXPECT_GT(schedule->pri_score[3], schedule->pri_score[0]);
  // Forward greedy placement of the whole DAG (list scheduling, longest
  // first) puts t0 down first, and the parents cannot overlap it: t1
  // [100,101); t2, released and longer, goes before t3: [101,197); t3 cannot
  // overlap t2: [197,198); t4 [198,296): about 3T.
  PlanState forward(in);
  ASSERT_TRUE(PlaceSubset(in, std::vector<uint8_t>(5, 1), Direction::kForward, forward).ok());
  EXPECT_EQ(forward.makespan(), S(296));
}

TEST(DagpsBuilderTest, BarrierPartitionsAreConcatenated) {
  // a -> m -> b with m a bridge: three parts; the plan is their sum.
  PlanInput in;
  in.machines = {Units(2, 2)};
  AddStage(in, 3, 2, Units(1, 1));  // a: 3 tasks of 2 s, two at a time: 4 s
  AddStage(in, 1, 1, Units(2, 2));  // m: 1 s
  AddStage(in, 2, 3, Units(1, 1));  // b: 3 s
  in.AddEdge(0, 1);
  in.AddEdge(1, 2);
  in.ComputeTopoOrder();
  auto schedule = BuildSchedule(in);
  ASSERT_TRUE(schedule.ok());
  EXPECT_EQ(schedule->parts.size(), 3u);
  EXPECT_EQ(schedule->makespan, S(8));
  EXPECT_TRUE(CheckSchedule(in, *schedule).ok());
  BuildOptions whole;
  whole.split_partitions = false;
  auto unsplit = BuildSchedule(in, whole);
  ASSERT_TRUE(unsplit.ok());
  EXPECT_EQ(unsplit->parts.size(), 1u);
  EXPECT_EQ(unsplit->makespan, S(8));
}

TEST(DagpsBuilderTest, FormatScheduleShowsPartsAndTasks) {
  const PlanInput in = Fig2Example();
  auto schedule = BuildSchedule(in);
  ASSERT_TRUE(schedule.ok());
  const std::string text = FormatSchedule(in, *schedule);
  EXPECT_NE(text.find("makespan 102.000 s"), std::string::npos) << text;
  EXPECT_NE(text.find("task,machine,start_s,end_s,pri_score"), std::string::npos);
}

TEST(DagpsBuilderPropertyTest, EveryPlanIsValidOnRandomDags) {
  RandomWorkloadOptions options;
  options.max_stages = 8;
  options.max_tasks = 8;
  int plans = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    auto workload = RandomWorkload(seed, options);
    ASSERT_TRUE(workload.ok());
    for (const Job& job : workload->jobs) {
      const PlanInput in = PlanInputFromJob(job, workload->cluster);
      auto schedule = BuildSchedule(in);
      ASSERT_TRUE(schedule.ok()) << "seed " << seed << ": " << schedule.status();
      ASSERT_TRUE(CheckSchedule(in, *schedule).ok()) << "seed " << seed << ": " << CheckSchedule(in, *schedule);
      // Never worse than placing the whole DAG greedily (that candidate is
      // always tried), never shorter than the longest task.
      auto greedy = TrySubsetOrders(in, std::vector<uint8_t>(in.stages.size(), kT));
      ASSERT_TRUE(greedy.ok());
      BuildOptions whole;
      whole.split_partitions = false;
      EXPECT_LE(BuildSchedule(in, whole)->makespan, (*greedy)[0].state.makespan());
      TimeUs longest = 0;
      for (const PlanStage& st : in.stages) {
        for (TimeUs d : st.durations) longest = std::max(longest, d);
      }
      EXPECT_GE(schedule->makespan, longest);
      ++plans;
    }
  }
  EXPECT_GT(plans, 100);
}

}  // namespace
}  // namespace weft::policy::dagps::testing
