// File: tests/sim/readiness_test.cc
//
// Readiness along DAG edges in sim::Engine: a barrier child becomes ready
// when the last task of its parent finishes; a pipelined child's task i when
// task i of its parent finishes; a stage with both kinds of parent when both
// are satisfied, announced in maximal runs of consecutive tasks. The ready
// time in AttemptRecords is when the parents were done, not when the
// scheduler heard of it.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

// One machine with room for everything, so tasks start as soon as they are
// ready and the schedule shows the readiness rules alone.
constexpr char kCluster[] = R"("cluster": {"machines": [{"name": "m", "capacity": {"cpu": 16, "mem": 16}}]})";

Workload WithJob(const std::string& stages) {
  return Parse(fmt::format(R"({{"weft": 1, {}, "jobs": [{{"name": "j", "stages": [{}]}}]}})", kCluster, stages));
}

// Script that launches every task as soon as it is announced and logs the
// announcements as "stage [begin,end) at seconds".
struct ReadyLog {
  Script script;
  Greedy greedy;
  std::vector<std::string> log;
  ReadyLog() {
    greedy.Install(script);
    script.on_ready = [this](Context& ctx, const TaskRange& r) {
      log.push_back(fmt::format("{} [{},{}) at {}", r.stage, r.begin, r.end, FormatSeconds(ctx.Now())));
      greedy.Add(r);
      greedy.Place(ctx);
    };
  }
};

TEST(EngineReadinessTest, BarrierChildIsReadyWhenTheLastParentTaskFinishes) {
  const Workload w = WithJob(R"(
    {"name": "a", "tasks": 2, "duration": 1, "durations": [1, 3], "demand": {"cpu": 1}},
    {"name": "b", "tasks": 2, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]})");
  ReadyLog s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(s.log, (std::vector<std::string>{"0 [0,2) at 0.000000", "1 [0,2) at 3.000000"}));
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.rec.Attempt(0, 0, i).ready_us, 0);
    EXPECT_EQ(r.rec.Attempt(0, 1, i).ready_us, Sec(3));
    EXPECT_EQ(r.rec.Attempt(0, 1, i).start_us, Sec(3));
    EXPECT_EQ(r.rec.Attempt(0, 1, i).end_us, Sec(4));
  }
  EXPECT_EQ(r.rec.Job(0).end_us, Sec(4));
}

TEST(EngineReadinessTest, PipelinedChildTaskIsReadyWhenItsOwnParentTaskFinishes) {
  const Workload w = WithJob(R"(
    {"name": "p", "tasks": 3, "duration": 1, "durations": [1, 2, 3], "demand": {"cpu": 1}},
    {"name": "q", "tasks": 3, "duration": 1, "demand": {"cpu": 1}, "after": [{"stage": "p", "kind": "pipelined"}]})");
  ReadyLog s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(s.log, (std::vector<std::string>{"0 [0,3) at 0.000000", "1 [0,1) at 1.000000", "1 [1,2) at 2.000000",
                                             "1 [2,3) at 3.000000"}));
  for (uint32_t i = 0; i < 3; ++i) {
    const AttemptRecord q = r.rec.Attempt(0, 1, i);
    EXPECT_EQ(q.ready_us, Sec(i + 1));
    EXPECT_EQ(q.start_us, Sec(i + 1));
    EXPECT_EQ(q.end_us, Sec(i + 2));
  }
}

TEST(EngineReadinessTest, PipelinedReadyTimeIsWhenTheParentEndedNotWhenTheSchedulerHeard) {
  const Workload w = WithJob(R"(
    {"name": "p", "tasks": 2, "duration": 1, "durations": [1, 2], "demand": {"cpu": 1}},
    {"name": "q", "tasks": 2, "duration": 1, "demand": {"cpu": 1}, "after": [{"stage": "p", "kind": "pipelined"}]})");
  ReadyLog s;
  SimOptions o;
  o.latency_us = Sec(0.005);
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  // p_i: ready 0, heard 0.005, started 0.010 (launch latency), ends i+1.010.
  // q_i: ready then, heard 0.005 later, started 0.010 later.
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(r.rec.Attempt(0, 0, i).start_us, Sec(0.010));
    EXPECT_EQ(r.rec.Attempt(0, 0, i).end_us, Sec(i + 1.010));
    const AttemptRecord q = r.rec.Attempt(0, 1, i);
    EXPECT_EQ(q.ready_us, Sec(i + 1.010));
    EXPECT_EQ(q.start_us, Sec(i + 1.020));
    EXPECT_EQ(q.end_us, Sec(i + 2.020));
  }
  EXPECT_EQ(s.log, (std::vector<std::string>{"0 [0,2) at 0.005000", "1 [0,1) at 1.015000", "1 [1,2) at 2.015000"}));
}

TEST(EngineReadinessTest, StageWithBarrierAndPipelinedParentsWaitsForBoth) {
  // r_i needs all of a (done at 2.5) and p_i (done at i+1): r_0 and r_1 are
  // ready together at 2.5 (one announcement), r_2 at 3.
  const Workload w = WithJob(R"(
    {"name": "a", "tasks": 1, "duration": 2.5, "demand": {"cpu": 1}},
    {"name": "p", "tasks": 3, "duration": 1, "durations": [1, 2, 3], "demand": {"cpu": 1}},
    {"name": "r", "tasks": 3, "duration": 1, "demand": {"cpu": 1},
     "after": ["a", {"stage": "p", "kind": "pipelined"}]})");
  ReadyLog s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(s.log, (std::vector<std::string>{"0 [0,1) at 0.000000", "1 [0,3) at 0.000000", "2 [0,2) at 2.500000",
                                             "2 [2,3) at 3.000000"}));
  EXPECT_EQ(r.rec.Attempt(0, 2, 0).ready_us, Sec(2.5));
  EXPECT_EQ(r.rec.Attempt(0, 2, 1).ready_us, Sec(2.5));
  EXPECT_EQ(r.rec.Attempt(0, 2, 2).ready_us, Sec(3));
  EXPECT_EQ(r.rec.Attempt(0, 2, 2).end_us, Sec(4));
}

TEST(EngineReadinessTest, ChainOfPipelinedStagesAndLateArrival) {
  // x -> (pipelined) y -> (pipelined) z, arriving at 5 s.
  const Workload w = Parse(fmt::format(R"({{"weft": 1, {}, "jobs": [{{"name": "j", "arrival": 5, "stages": [
    {{"name": "x", "tasks": 2, "duration": 1, "durations": [2, 1], "demand": {{"cpu": 1}}}},
    {{"name": "y", "tasks": 2, "duration": 1, "demand": {{"cpu": 1}}, "after": [{{"stage": "x", "kind": "pipelined"}}]}},
    {{"name": "z", "tasks": 2, "duration": 0.5, "demand": {{"cpu": 1}}, "after": [{{"stage": "y", "kind": "pipelined"}}]}}
  ]}}]}})", kCluster));
  ReadyLog s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).ready_us, Sec(5));
  EXPECT_EQ(r.rec.Attempt(0, 2, 0).ready_us, Sec(8));
  EXPECT_EQ(r.rec.Attempt(0, 2, 0).end_us, Sec(8.5));
  EXPECT_EQ(r.rec.Attempt(0, 2, 1).ready_us, Sec(7));
  EXPECT_EQ(r.rec.Attempt(0, 2, 1).end_us, Sec(7.5));
  EXPECT_EQ(r.rec.Job(0).end_us, Sec(8.5));
  EXPECT_EQ(r.rec.Job(0).start_us, Sec(5));
}

TEST(EngineReadinessTest, DiamondJoinsOnTheSlowerBranch) {
  const Workload w = WithJob(R"(
    {"name": "src", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
    {"name": "fast", "tasks": 2, "duration": 1, "demand": {"cpu": 1}, "after": ["src"]},
    {"name": "slow", "tasks": 1, "duration": 4, "demand": {"cpu": 1}, "after": ["src"]},
    {"name": "sink", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["fast", "slow"]})");
  ReadyLog s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.Attempt(0, 1, 1).ready_us, Sec(1));
  EXPECT_EQ(r.rec.Attempt(0, 3, 0).ready_us, Sec(5));
  EXPECT_EQ(r.rec.Attempt(0, 3, 0).end_us, Sec(6));
}

}  // namespace
}  // namespace weft::sim::scripted
