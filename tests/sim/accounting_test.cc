// File: tests/sim/accounting_test.cc
//
// What attempts hold and use (sim/execution.h): a task with phases holds its
// memory for the whole attempt and each phase's resource only while the
// phase runs; usage follows the progress rate and never exceeds a machine's
// capacity; overbooking is per resource; `durations` scale phases; measured
// usage reaches the policy in TaskEnd. The figures are worked by hand in the
// comments.
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "metrics/run_metrics.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

struct Metered {
  RunOutcome out;
  RunSummary summary;
};

// RunMetered: RunEngine, with RunMetrics watching too.
Metered RunMetered(const Workload& w, Script& script, SimOptions options = {}) {
  ScriptedPolicy policy(script);
  Engine engine(w, policy, std::move(options));
  Metered m;
  RunMetrics metrics(w);
  ScheduleChecker checker(w, script.overbooking ? kAllResources : script.overbooked);
  engine.AddObserver(&m.out.rec);
  engine.AddObserver(&metrics);
  engine.AddObserver(&checker);
  m.out.status = engine.Run();
  m.out.stats = engine.stats();
  m.out.checker_ok = checker.ok();
  m.out.violations = checker.violations();
  m.summary = metrics.summary();
  return m;
}

// One 1-core machine; two tasks of one 10 core-second cpu phase each, with
// no cpu demand declared (as a workload given only by phases has), so the
// greedy scheduler starts both at once.
constexpr char kTwoCpuPhases[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "demand": {"mem": 1},
    "phases": [{"resource": "cpu", "work": 10}]}]}]})";

TEST(AccountingTest, CpuPhasesOnOneCoreShareItInTheFixedModel) {
  // Fixed model: 20 core-seconds of phases on one core take 20 s. Each phase
  // runs at rate 0.5, holding and using 0.5 core: cpu SE = 2 x 0.5 x 20 /
  // (1 x 20) = 1. (The fixed model once ran both in 10 s: work from nothing.)
  const Workload w = Parse(kTwoCpuPhases);
  Script s;
  Greedy g;
  g.Install(s);
  const Metered m = RunMetered(w, s);
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_TRUE(m.out.checker_ok) << Violations(m.out);
  EXPECT_EQ(m.out.rec.Job(0).end_us, Sec(20));
  EXPECT_DOUBLE_EQ(m.summary.utilization[kCpu], 1.0);
  EXPECT_DOUBLE_EQ(m.summary.ue[kCpu], 1.0);
  EXPECT_DOUBLE_EQ(m.summary.used[kCpu], 1.0);
  // Memory is held for the whole attempt: 2 x 1 GB x 20 s / (4 GB x 20 s).
  EXPECT_DOUBLE_EQ(m.summary.utilization[kMem], 0.5);
  ASSERT_EQ(m.out.rec.phases.size(), 2u);
  for (const PhaseRecord& p : m.out.rec.phases) {
    EXPECT_EQ(p.resource, kCpu);
    EXPECT_EQ(p.start_us, 0);
    EXPECT_EQ(p.end_us, Sec(20));
    EXPECT_DOUBLE_EQ(p.held, 0.5);
    EXPECT_TRUE(p.completed);
  }
  for (const AttemptRecord& a : m.out.rec.attempts) {
    EXPECT_EQ(a.usage.micro(kCpu), 500'000);
    ASSERT_TRUE(a.held.has_value());
    EXPECT_EQ(a.held->micro(kCpu), 500'000);
    EXPECT_EQ(a.held->micro(kMem), 1'000'000);
  }
}

TEST(AccountingTest, CpuPhasesOnOneCoreShareItUnderContention) {
  // Contention: each phase runs at rate 0.5, so both end at 20 s, each using
  // half the core: cpu SE = UE = 1.
  const Workload w = Parse(kTwoCpuPhases);
  Script s;
  Greedy g;
  g.Install(s);
  const Metered m = RunMetered(w, s, SimOptions{.model = ExecutionModel::kContention});
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_TRUE(m.out.checker_ok) << Violations(m.out);
  EXPECT_EQ(m.out.rec.Job(0).end_us, Sec(20));
  EXPECT_DOUBLE_EQ(m.summary.utilization[kCpu], 1.0);
  EXPECT_DOUBLE_EQ(m.summary.ue[kCpu], 1.0);
}

// Two whole tasks of 1 core for 4 s each on one core, the policy overbooking.
// A later job keeps the run going, so that the notifications of the first
// job's last instant are delivered too (a run ends with its last job).
constexpr char kTwoOnOneCore[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 8}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "duration": 4, "demand": {"cpu": 1, "mem": 1}}]},
           {"name": "tail", "arrival": 100, "stages": [{"name": "t", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(AccountingTest, OverbookedCoreIsNeverUsedTwiceInTheFixedModel) {
  // One core delivers only 1: both run at rate 0.5, each using 0.5 core, and
  // end at 8 s. Reservations may exceed capacity (SE 2), use may not.
  const Workload w = Parse(kTwoOnOneCore);
  Script s;
  s.overbooking = true;
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  const Metered m = RunMetered(w, s);
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_TRUE(m.out.checker_ok) << Violations(m.out);
  EXPECT_EQ(m.out.rec.Job(0).end_us, Sec(8));
  for (uint32_t i = 0; i < 2; ++i) {
    const AttemptRecord& a = m.out.rec.Attempt(0, 0, i);
    EXPECT_EQ(a.usage.micro(kCpu), 500'000);
    EXPECT_FALSE(a.held.has_value()) << "a task without phases holds its demand";
  }
}

TEST(AccountingTest, UsageFollowsTheRateUnderContentionAndReachesThePolicy) {
  // Contention: both run at rate 0.5 and end at 8 s, each using 0.5 core.
  const Workload w = Parse(kTwoOnOneCore);
  Script s;
  s.overbooking = true;
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  std::vector<policy::TaskUsage> heard;
  auto place = s.on_ended;
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    if (e.task.job == JobId(0)) heard.push_back(e.usage);
    if (place) place(ctx, e);
  };
  const Metered m = RunMetered(w, s, SimOptions{.model = ExecutionModel::kContention});
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_EQ(m.out.rec.Job(0).end_us, Sec(8));
  ASSERT_EQ(heard.size(), 2u);
  for (const policy::TaskUsage& u : heard) {
    EXPECT_EQ(u.average.micro(kCpu), 500'000);
    EXPECT_EQ(u.peak.micro(kCpu), 500'000);
    EXPECT_EQ(u.average.micro(kMem), 1'000'000) << "memory is used in full whatever the rate";
  }
}

TEST(AccountingTest, PeakAndAverageDifferWhenTheRateChanges) {
  // Contention, one core: task 0 (4 s) alone from 0 to 2 s at rate 1; task 1
  // (2 s) joins at 2 s, both at rate 0.5; task 1 ends at 6 s, task 0 has 0
  // left then too (2 s of work at 0.5 from 2 to 6). Task 0 used 1 core for
  // 2 s and 0.5 for 4 s: average 4/6 core, peak 1.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "duration": 4, "demand": {"cpu": 1}}]},
             {"name": "k", "arrival": 2, "stages": [{"name": "b", "tasks": 1, "duration": 2, "demand": {"cpu": 1}}]}]})");
  Script s;
  s.overbooking = true;
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  const Metered m = RunMetered(w, s, SimOptions{.model = ExecutionModel::kContention});
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  const AttemptRecord& a = m.out.rec.Attempt(0, 0, 0);
  EXPECT_EQ(a.end_us, Sec(6));
  EXPECT_EQ(a.usage.micro(kCpu), 666'667);
  EXPECT_NEAR(m.summary.used[kCpu], 1.0, 1e-6) << "the core was busy and never used twice";
}

TEST(AccountingTest, OverbookingIsPerResource) {
  // The policy may overbook cpu only: a second 1-core task fits on the
  // 1-core machine, a task that does not fit in memory is refused.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 2}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 3, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]}]})");
  Script s;
  s.overbooked = MaskOf(kCpu);
  std::vector<absl::StatusCode> codes;
  s.on_ready = [&](Context& ctx, const TaskRange& r) {
    for (uint32_t i = r.begin; i < r.end; ++i) codes.push_back(ctx.Launch(TaskRef{r.job, 0, i}, MachineId(0)).code());
  };
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    if (e.task.index == 0) codes.push_back(ctx.Launch(TaskRef{e.task.job, 0, 2}, MachineId(0)).code());
  };
  const Metered m = RunMetered(w, s);
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_TRUE(m.out.checker_ok) << Violations(m.out);
  EXPECT_EQ(codes, (std::vector<absl::StatusCode>{absl::StatusCode::kOk, absl::StatusCode::kOk,
                                                  absl::StatusCode::kFailedPrecondition, absl::StatusCode::kOk}));
}

TEST(AccountingTest, CheckerJudgesOverbookingPerResource) {
  // A policy that declares cpu overbooking but overbooks memory (the engine
  // allows it, lying) is caught by the checker, which allows cpu only.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 1}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]}]})");
  Script s;
  s.overbooking = true;  // the engine lets everything through
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  ScriptedPolicy policy(s);
  Engine engine(w, policy, {});
  ScheduleChecker checker(w, MaskOf(kCpu));
  engine.AddObserver(&checker);
  ASSERT_TRUE(engine.Run().ok());
  EXPECT_FALSE(checker.ok());
}

TEST(AccountingTest, DurationsScaleEveryPhase) {
  // Phases cpu 2 core-s then disk 100 MB at 100 MB/s: 3 s alone. durations
  // [1.5, 6] scale task 0's phases by 0.5 and task 1's by 2.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4, "disk": 100}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "durations": [1.5, 6], "demand": {"cpu": 1},
      "phases": [{"resource": "cpu", "work": 2}, {"resource": "disk", "work": 100}]}]}]})");
  Script s;
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  const Metered m = RunMetered(w, s);
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_EQ(m.out.rec.Attempt(0, 0, 0).end_us, Sec(1.5));
  EXPECT_EQ(m.out.rec.Attempt(0, 0, 1).end_us, Sec(6));
}

TEST(AccountingTest, AgentControlledPhasesHoldOnlyMemoryBetweenPhases) {
  // cpu 1 core-s, then net 100 MB at 100 MB/s; the agent starts phase 1 one
  // second after phase 0 ends. The launch reserves memory only; cpu is held
  // during phase 0 (1 s), net during phase 1 (1 s), nothing else between.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 4, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "demand": {"cpu": 1, "mem": 2},
      "phases": [{"resource": "cpu", "work": 1}, {"resource": "net", "work": 100}]}]},
             {"name": "tail", "arrival": 100, "stages": [{"name": "t", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  Script s;
  s.node_agents = true;
  s.agent_controls_phases = true;
  Greedy g;
  g.Install(s);
  std::vector<std::string> log;
  TaskRef held;
  s.node_on_phase_ready = [&](Context& ctx, MachineId, const TaskRef& t, uint32_t phase) {
    log.push_back(fmt::format("ready {} at {}", phase, FormatSeconds(ctx.Now())));
    // What is reserved on the machine now: the task's memory only.
    EXPECT_EQ(ctx.cluster().allocated(MachineId(0)).micro(kCpu), 0);
    EXPECT_EQ(ctx.cluster().allocated(MachineId(0)).micro(kMem), 2'000'000);
    if (phase == 0) {
      ASSERT_TRUE(ctx.StartPhase(t).ok());
    } else {
      held = t;
      ctx.SetTimer(Sec(1), 0);
    }
  };
  s.node_on_phase_ended = [&](Context& ctx, MachineId, const TaskRef& t, uint32_t phase) {
    if (t.job != JobId(0)) return;
    log.push_back(fmt::format("ended {} at {}", phase, FormatSeconds(ctx.Now())));
  };
  s.node_on_timer = [&](Context& ctx, MachineId, uint64_t) { ASSERT_TRUE(ctx.StartPhase(held).ok()); };
  const Metered m = RunMetered(w, s);
  ASSERT_TRUE(m.out.status.ok()) << m.out.status;
  EXPECT_TRUE(m.out.checker_ok) << Violations(m.out);
  EXPECT_EQ(log, (std::vector<std::string>{"ready 0 at 0.000000", "ended 0 at 1.000000", "ready 1 at 1.000000",
                                           "ended 1 at 3.000000"}));
  const AttemptRecord& a = m.out.rec.Attempt(0, 0, 0);
  EXPECT_EQ(a.end_us, Sec(3));
  EXPECT_EQ(a.demand.micro(kCpu), 0) << "reserved at launch: memory only";
  ASSERT_TRUE(a.held.has_value());
  // Over 3 s: cpu 1 core for 1 s, net 100 MB/s for 1 s, memory 2 GB for 3 s.
  EXPECT_EQ(a.held->micro(kCpu), 333'333);
  EXPECT_EQ(a.held->micro(kNet), 33'333'333);
  EXPECT_EQ(a.held->micro(kMem), 2'000'000);
  ASSERT_EQ(m.out.rec.phases.size(), 2u);
  EXPECT_EQ(m.out.rec.phases[1].start_us, Sec(2));
  EXPECT_EQ(m.out.rec.phases[1].resource, kNet);
  EXPECT_DOUBLE_EQ(m.out.rec.phases[1].held, 100.0);
}

TEST(AccountingTest, MachineUsedNeverExceedsCapacityWhileRunning) {
  // Watched from the policy: at each task end, what the machine uses of cpu
  // is at most its capacity although three 1-core tasks share one core.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 3, "duration": 1, "durations": [1, 2, 3], "demand": {"cpu": 1}}]},
             {"name": "tail", "arrival": 100, "stages": [{"name": "t", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    Script s;
    s.overbooking = true;
    Greedy g;
    g.pin = [](const TaskRef&) { return MachineId(0); };
    g.Install(s);
    std::vector<int64_t> seen;
    s.on_ended = [&](Context& ctx, const TaskEnd& e) {
      if (e.task.job == JobId(0)) seen.push_back(ctx.cluster().used(MachineId(0)).micro(kCpu));
    };
    const Metered m = RunMetered(w, s, SimOptions{.model = model});
    ASSERT_TRUE(m.out.status.ok()) << m.out.status;
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0], 1'000'000) << "two left sharing the core";
    EXPECT_EQ(seen[1], 1'000'000) << "one left alone";
    EXPECT_EQ(seen[2], 0);
    EXPECT_LE(m.summary.used[kCpu], 1.0 + 1e-9);
  }
}

}  // namespace
}  // namespace weft::sim::scripted
