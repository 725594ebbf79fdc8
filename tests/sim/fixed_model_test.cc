// File: tests/sim/fixed_model_test.cc
//
// The fixed execution model: a task runs for exactly its duration once
// started, whatever else runs beside it; a task with phases runs them in
// order, a cpu phase of work W for W seconds and a net or disk phase of M MB
// for M / bandwidth seconds. With a node agent that controls phases, each
// phase waits for the agent's StartPhase.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

TEST(FixedModelTest, TaskRunsForExactlyItsDuration) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 8, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "a", "tasks": 3, "duration": 1, "durations": [1.5, 2.25, 0.000001], "demand": {"cpu": 1}}]}]})");
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(1.5));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(2.25));
  EXPECT_EQ(r.rec.Attempt(0, 0, 2).end_us, 1);
  EXPECT_EQ(r.rec.Job(0).end_us, Sec(2.25));
}

TEST(FixedModelTest, OverbookedTasksShareTheCoreAndStretch) {
  // Three 1-cpu tasks of 4 s overbooked on a 1-cpu machine: 12 core-seconds
  // on one core. Max-min gives each a third of the core, so all three end at
  // 12 s (the fixed model once ended them at 4 s: work from nothing).
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 3, "duration": 4, "demand": {"cpu": 1}}]}]})");
  Script s;
  s.overbooking = true;
  Greedy g;
  g.pin = [](const TaskRef&) { return MachineId(0); };
  g.Install(s);
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(r.rec.Attempt(0, 0, i).end_us, Sec(12));
}

// m: 2 cpu, net 200 MB/s, disk 100 MB/s. Phases: cpu 0.5 core-s (0.5 s),
// net 300 MB (1.5 s), disk 50 MB (0.5 s): 2.5 s in all.
constexpr char kPhases[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 8, "disk": 100, "net": 200}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "demand": {"cpu": 1},
    "phases": [{"resource": "cpu", "work": 0.5}, {"resource": "net", "work": 300},
               {"resource": "disk", "work": 50}]}]}]})";

TEST(FixedModelTest, PhasesRunBackToBackAtTheirOwnSpeed) {
  const Workload w = Parse(kPhases);
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, 0);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(2.5));
}

// A node agent that controls phases hears each phase when the previous one
// ends and starts it at once, except phase `hold` which it starts `delay`
// later. It logs "phase P at T".
struct PhaseAgent {
  Script script;
  Greedy greedy;
  std::vector<std::string> log;
  uint32_t hold = UINT32_MAX;
  TimeUs delay = 0;
  TaskRef held;

  PhaseAgent() {
    script.node_agents = true;
    script.agent_controls_phases = true;
    greedy.Install(script);
    script.node_on_phase_ready = [this](Context& ctx, MachineId, const TaskRef& t, uint32_t phase) {
      log.push_back(fmt::format("phase {} at {}", phase, FormatSeconds(ctx.Now())));
      if (phase == hold) {
        held = t;
        ctx.SetTimer(delay, 0);
        return;
      }
      ASSERT_TRUE(ctx.StartPhase(t).ok());
      EXPECT_EQ(ctx.StartPhase(t).code(), absl::StatusCode::kFailedPrecondition) << "already running";
    };
    script.node_on_timer = [this](Context& ctx, MachineId, uint64_t) { ASSERT_TRUE(ctx.StartPhase(held).ok()); };
  }
};

TEST(FixedModelTest, PhasesRunInOrderUnderANodeAgent) {
  const Workload w = Parse(kPhases);
  PhaseAgent agent;
  const RunOutcome r = RunEngine(w, agent.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(agent.log, (std::vector<std::string>{"phase 0 at 0.000000", "phase 1 at 0.500000",
                                                 "phase 2 at 2.000000"}));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(2.5));
}

TEST(FixedModelTest, NodeAgentCanHoldAPhase) {
  const Workload w = Parse(kPhases);
  PhaseAgent agent;
  agent.hold = 1;
  agent.delay = Sec(1);
  const RunOutcome r = RunEngine(w, agent.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(agent.log, (std::vector<std::string>{"phase 0 at 0.000000", "phase 1 at 0.500000",
                                                 "phase 2 at 3.000000"}));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, 0);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(3.5));
}

TEST(FixedModelTest, OnlyTheMachinesNodeAgentStartsPhases) {
  const Workload w = Parse(kPhases);
  PhaseAgent agent;
  absl::Status from_scheduler;
  agent.script.on_ready = [&](Context& ctx, const TaskRange& range) {
    agent.greedy.Add(range);
    agent.greedy.Place(ctx);
    from_scheduler = ctx.StartPhase(TaskRef{range.job, 0, 0});
  };
  const RunOutcome r = RunEngine(w, agent.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(from_scheduler.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(2.5));
}

TEST(FixedModelTest, MachineWithoutThePhasesResourceIsRefused) {
  // m0 has no net: a task with a net phase cannot run there.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "nonet", "capacity": {"cpu": 2, "mem": 8}},
                             {"name": "net", "capacity": {"cpu": 2, "mem": 8, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "demand": {"cpu": 1},
      "phases": [{"resource": "net", "work": 100}]}]}]})");
  Script s;
  absl::Status on_nonet;
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    on_nonet = ctx.Launch(TaskRef{range.job, 0, 0}, MachineId(0));
    ASSERT_TRUE(ctx.Launch(TaskRef{range.job, 0, 0}, MachineId(1)).ok());
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(on_nonet.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(1));
}

}  // namespace
}  // namespace weft::sim::scripted
