// File: tests/sim/decisions_test.cc
//
// The engine checks every decision: an illegal launch or kill returns
// FailedPrecondition, is counted in stats().refused_decisions and changes
// nothing. And a policy that makes no progress cannot hang a run: one that
// never launches ends it with an error naming the unscheduled tasks, one
// that keeps setting timers is stopped by the stall limit.
#include <string>
#include <vector>

#include "core/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

using ::testing::HasSubstr;
using policy::TaskState;

// m0 (2 cpu), m1 (4 cpu; down from 0 to 0.5 s). Job 0: a (3 tasks, 1 cpu,
// 1 s) -> b (1 task); stage c (1 task, 3 cpu) fits m1 only.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m0", "capacity": {"cpu": 2, "mem": 4}},
                           {"name": "m1", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 3, "duration": 1, "demand": {"cpu": 1}},
    {"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]},
    {"name": "c", "tasks": 1, "duration": 1, "demand": {"cpu": 3}}]}]})";

SimOptions M1DownAtStart() {
  SimOptions o;
  o.failures = {MachineFailure{.machine = MachineId(1), .at_us = 0, .recover_us = Sec(0.5)}};
  return o;
}

constexpr auto kRefused = absl::StatusCode::kFailedPrecondition;

TEST(EngineDecisionsTest, IllegalLaunchesAndKillsAreRefusedAndChangeNothing) {
  const Workload w = Parse(kWorkload);
  Script s;
  Greedy greedy;
  greedy.Install(s);
  std::vector<std::string> checked;
  bool first = true;
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    greedy.Add(range);
    if (!first) return greedy.Place(ctx);
    first = false;
    const JobId j(0);
    const MachineId m0(0), m1(1);
    auto expect_refused = [&](absl::Status st, const std::string& what) {
      EXPECT_EQ(st.code(), kRefused) << what << ": " << st;
      checked.push_back(what);
    };
    const TaskRef a0{j, 0, 0}, a1{j, 0, 1}, a2{j, 0, 2}, b0{j, 1, 0};
    expect_refused(ctx.Launch(b0, m0), "blocked task");
    EXPECT_EQ(ctx.job(j).state(b0), TaskState::kBlocked);
    expect_refused(ctx.Launch(a0, m1), "machine down");
    expect_refused(ctx.Launch(a0, MachineId(7)), "no such machine");
    expect_refused(ctx.Launch(a0, MachineId()), "invalid machine");
    expect_refused(ctx.Launch(TaskRef{j, 0, 3}, m0), "no such task");
    expect_refused(ctx.Launch(TaskRef{j, 5, 0}, m0), "no such stage");
    expect_refused(ctx.Launch(TaskRef{JobId(3), 0, 0}, m0), "no such job");
    expect_refused(ctx.Kill(a0), "kill a ready task");
    EXPECT_EQ(ctx.cluster().allocated(m0), Resources());
    EXPECT_EQ(ctx.job(j).state(a0), TaskState::kReady);

    ASSERT_TRUE(ctx.Launch(a0, m0).ok());
    expect_refused(ctx.Launch(a0, m0), "launch twice");
    ASSERT_TRUE(ctx.Launch(a1, m0).ok());
    const Resources before = ctx.cluster().allocated(m0);
    expect_refused(ctx.Launch(a2, m0), "over capacity");
    EXPECT_EQ(ctx.cluster().allocated(m0), before);
    EXPECT_EQ(ctx.cluster().running(m0), 2u);
    EXPECT_EQ(ctx.job(j).state(a2), TaskState::kReady);
    EXPECT_EQ(ctx.job(j).stage_progress(0).ready, 1u);
    EXPECT_EQ(ctx.job(j).stage_progress(0).running, 2u);
    greedy.pending.clear();
    greedy.pending.push_back(a2);  // the rest waits for room
  };
  const RunOutcome r = RunEngine(w, s, M1DownAtStart());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(checked.size(), 10u);
  EXPECT_EQ(r.stats.refused_decisions, 10u);
  EXPECT_EQ(r.stats.tasks_done, 5u);
  EXPECT_EQ(r.stats.attempts, 5u);  // refusals made no attempts
}

TEST(EngineDecisionsTest, OverbookingMayExceedWhatIsFreeButNotTheCapacity) {
  const Workload w = Parse(kWorkload);
  Script s;
  s.overbooking = true;
  std::vector<absl::Status> results;
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    if (range.stage != 0) return;
    const JobId j(0);
    for (uint32_t i = 0; i < 3; ++i) results.push_back(ctx.Launch(TaskRef{j, 0, i}, MachineId(0)));
    results.push_back(ctx.Launch(TaskRef{j, 2, 0}, MachineId(0)));  // 3 cpu > m0's 2
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_TRUE(results[1].ok());
  EXPECT_TRUE(results[2].ok()) << "overbooking: 3 cpu reserved on 2";
  EXPECT_EQ(results[3].code(), kRefused);
  EXPECT_FALSE(r.status.ok());  // b and c never launched
}

TEST(EngineDecisionsTest, PolicyThatNeverLaunchesEndsTheRunWithAnError) {
  const Workload w = Parse(kWorkload);
  Script s;  // hears everything, does nothing
  const RunOutcome r = RunEngine(w, s);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(StatusMessage(r.status)), HasSubstr("1 jobs never finished"));
  EXPECT_THAT(std::string(StatusMessage(r.status)), HasSubstr("5 tasks unscheduled"));
  EXPECT_EQ(r.stats.tasks_unfinished, 5u);
  EXPECT_EQ(r.rec.run_end, 0);
  EXPECT_FALSE(r.checker_ok);  // the checker sees a job that never ended
}

TEST(EngineDecisionsTest, PolicyThatOnlySetsTimersIsStoppedByTheStallLimit) {
  const Workload w = Parse(kWorkload);
  Script s;
  s.on_job_arrived = [](Context& ctx, JobId) { ctx.SetTimer(Sec(1), 0); };
  s.on_timer = [](Context& ctx, uint64_t) { ctx.SetTimer(Sec(1), 0); };
  SimOptions o;
  o.stall_limit = 1000;
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(std::string(StatusMessage(r.status)), HasSubstr("no progress for 1000 events"));
  EXPECT_LE(r.stats.events, 1010u);
  // The run is closed for the observers as for a normal end.
  EXPECT_GT(r.stats.end_us, Sec(900));
  EXPECT_EQ(r.rec.run_end, r.stats.end_us);
  EXPECT_EQ(r.stats.tasks_unfinished, 5u);
}

TEST(EngineDecisionsTest, ZeroDelayTimerLoopIsStoppedToo) {
  const Workload w = Parse(kWorkload);
  Script s;
  s.on_job_arrived = [](Context& ctx, JobId) { ctx.SetTimer(0, 0); };
  s.on_timer = [](Context& ctx, uint64_t) { ctx.SetTimer(0, 0); };
  SimOptions o;
  o.stall_limit = 500;
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(std::string(StatusMessage(r.status)), HasSubstr("no progress"));
  EXPECT_EQ(r.stats.end_us, 0);
}

TEST(EngineDecisionsTest, MessagePingPongWithoutLaunchingIsStopped) {
  const Workload w = Parse(kWorkload);
  Script s;
  s.node_agents = true;
  s.on_job_arrived = [](Context& ctx, JobId) { ctx.Send(Address::Node(MachineId(0)), Message{}); };
  s.on_message = [](Context& ctx, const Address& from, const Message& m) { ctx.Send(from, m); };
  s.node_on_message = [](Context& ctx, MachineId, const Address& from, const Message& m) { ctx.Send(from, m); };
  SimOptions o;
  o.latency_us = Sec(0.001);
  o.stall_limit = 300;
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_FALSE(r.status.ok());
  EXPECT_THAT(std::string(StatusMessage(r.status)), HasSubstr("no progress"));
  EXPECT_GT(r.stats.messages, 250u);
}

TEST(EngineDecisionsTest, BadRunInputsAreRejectedBeforeAnythingRuns) {
  const Workload w = Parse(kWorkload);
  Script no_scheduler;
  no_scheduler.schedulers = 0;
  const RunOutcome a = RunEngine(w, no_scheduler);
  EXPECT_EQ(a.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(a.stats.events, 0u);
  Script s;
  SimOptions o;
  o.failures = {MachineFailure{.machine = MachineId(2), .at_us = Sec(1)}};
  const RunOutcome b = RunEngine(w, s, o);
  EXPECT_EQ(b.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b.stats.events, 0u);
}

}  // namespace
}  // namespace weft::sim::scripted
