// File: tests/sim/failure_test.cc
//
// Failures in sim::Engine: attempts that fail (task_failure_prob) are retried
// until max_attempts failed attempts, when the job fails and its other
// attempts are killed; a machine failure kills what runs (or is on its way)
// there, as outcome killed, and the tasks rerun elsewhere; a recovered
// machine runs tasks again; a policy's Kill returns the task to ready
// without counting against its attempts.
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

using policy::TaskState;

// m0 and m1, one core each; one job of one 10-second task (or `tasks`).
Workload TwoSingleCores(int tasks = 1) {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "count": 2, "capacity": {{"cpu": 1, "mem": 4}}}}]}},
    "jobs": [{{"name": "j", "stages": [{{"name": "a", "tasks": {}, "duration": 10, "demand": {{"cpu": 1}}}}]}}]}})",
                           tasks));
}

struct GreedyScript {
  Script script;
  Greedy greedy;
  std::vector<TaskEnd> ends;
  std::vector<std::pair<std::string, TimeUs>> machine_log;
  GreedyScript() {
    greedy.Install(script);
    script.on_ended = [this](Context& ctx, const TaskEnd& e) {
      ends.push_back(e);
      greedy.Place(ctx);
    };
    script.on_machine_down = [this](Context& ctx, MachineId m) {
      EXPECT_FALSE(ctx.cluster().up(m));
      machine_log.emplace_back(fmt::format("down {}", m.value()), ctx.Now());
    };
    script.on_machine_up = [this](Context& ctx, MachineId m) {
      EXPECT_TRUE(ctx.cluster().up(m));
      machine_log.emplace_back(fmt::format("up {}", m.value()), ctx.Now());
      greedy.Place(ctx);
    };
  }
};

TEST(EngineFailureTest, FailedAttemptsAreRetriedThenTheJobFailsAfterMaxAttempts) {
  const Workload w = TwoSingleCores();
  GreedyScript s;
  SimOptions o;
  o.task_failure_prob = 1;
  o.max_attempts = 3;
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;  // a failed job still ends the run normally
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  ASSERT_EQ(r.rec.attempts.size(), 3u);
  TimeUs previous_end = 0;
  for (uint32_t k = 0; k < 3; ++k) {
    const AttemptRecord a = r.rec.Attempt(0, 0, 0, k);
    EXPECT_EQ(a.outcome, Outcome::kFailed);
    EXPECT_EQ(a.start_us, previous_end);  // retried at once
    EXPECT_GT(a.end_us, a.start_us);      // fails partway
    EXPECT_LT(a.end_us, a.start_us + Sec(10));
    previous_end = a.end_us;
  }
  ASSERT_EQ(s.ends.size(), 2u);  // the third end is heard after the run is over
  EXPECT_TRUE(s.ends[0].will_retry);
  EXPECT_TRUE(s.ends[1].will_retry);
  const JobRecord job = r.rec.Job(0);
  EXPECT_FALSE(job.succeeded);
  EXPECT_EQ(job.end_us, previous_end);
  EXPECT_EQ(r.stats.jobs_failed, 1u);
  EXPECT_EQ(r.stats.jobs_succeeded, 0u);
  EXPECT_EQ(r.stats.tasks_done, 0u);
}

TEST(EngineFailureTest, FailingJobKillsItsOtherRunningAttempts) {
  const Workload w = TwoSingleCores(2);
  GreedyScript s;
  SimOptions o;
  o.task_failure_prob = 1;
  o.max_attempts = 1;
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  ASSERT_EQ(r.rec.attempts.size(), 2u);
  const AttemptRecord& first = r.rec.attempts[0];
  const AttemptRecord& second = r.rec.attempts[1];
  EXPECT_EQ(first.outcome, Outcome::kFailed);
  EXPECT_EQ(second.outcome, Outcome::kKilled);
  EXPECT_EQ(second.end_us, first.end_us);
  EXPECT_NE(first.task, second.task);
  EXPECT_FALSE(r.rec.Job(0).succeeded);
  EXPECT_EQ(r.rec.Job(0).end_us, first.end_us);
}

TEST(EngineFailureTest, RandomFailuresAreRetriedUntilSuccessAndReplayExactly) {
  const Workload w = TwoSingleCores(4);
  SimOptions o;
  o.task_failure_prob = 0.5;
  o.max_attempts = 100;
  o.seed = 7;
  GreedyScript s1, s2, s3;
  const RunOutcome a = RunEngine(w, s1.script, o);
  const RunOutcome b = RunEngine(w, s2.script, o);
  o.seed = 8;
  const RunOutcome c = RunEngine(w, s3.script, o);
  ASSERT_TRUE(a.status.ok()) << a.status;
  EXPECT_TRUE(a.checker_ok) << Violations(a);
  EXPECT_TRUE(a.rec.Job(0).succeeded);
  EXPECT_GT(a.rec.attempts.size(), 4u);  // seed 7 fails some attempts
  for (uint32_t i = 0; i < 4; ++i) {
    const size_t n = a.rec.AttemptsOf(0, 0, i);
    EXPECT_EQ(a.rec.Attempt(0, 0, i, static_cast<uint32_t>(n - 1)).outcome, Outcome::kOk);
  }
  ASSERT_EQ(a.rec.attempts.size(), b.rec.attempts.size());
  for (size_t k = 0; k < a.rec.attempts.size(); ++k) {
    EXPECT_EQ(a.rec.attempts[k].task, b.rec.attempts[k].task);
    EXPECT_EQ(a.rec.attempts[k].end_us, b.rec.attempts[k].end_us);
    EXPECT_EQ(a.rec.attempts[k].machine, b.rec.attempts[k].machine);
  }
  EXPECT_NE(a.rec.Job(0).end_us, c.rec.Job(0).end_us);  // another seed, other failures
}

TEST(EngineFailureTest, MachineFailureKillsRunningTasksWhichRerunElsewhere) {
  const Workload w = TwoSingleCores();
  GreedyScript s;
  SimOptions o;
  o.failures = {MachineFailure{.machine = MachineId(0), .at_us = Sec(4)}};
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  const AttemptRecord lost = r.rec.Attempt(0, 0, 0, 0);
  EXPECT_EQ(lost.machine, MachineId(0));
  EXPECT_EQ(lost.outcome, Outcome::kKilled);
  EXPECT_EQ(lost.end_us, Sec(4));
  const AttemptRecord rerun = r.rec.Attempt(0, 0, 0, 1);
  EXPECT_EQ(rerun.machine, MachineId(1));
  EXPECT_EQ(rerun.start_us, Sec(4));
  EXPECT_EQ(rerun.end_us, Sec(14));
  EXPECT_EQ(rerun.ready_us, 0);
  ASSERT_EQ(s.ends.size(), 1u);
  EXPECT_EQ(s.ends[0].outcome, Outcome::kKilled);
  EXPECT_TRUE(s.ends[0].will_retry);
  EXPECT_EQ(s.machine_log, (std::vector<std::pair<std::string, TimeUs>>{{"down 0", Sec(4)}}));
}

TEST(EngineFailureTest, MachineFailureKillsALaunchStillOnItsWay) {
  // Latency 0.5 s: launched at 0.5, due to start at 1.0, but m0 fails at 0.7.
  // The task is heard ready again at 1.2, relaunched on m1, starts at 1.7.
  const Workload w = TwoSingleCores();
  GreedyScript s;
  SimOptions o;
  o.latency_us = Sec(0.5);
  o.failures = {MachineFailure{.machine = MachineId(0), .at_us = Sec(0.7)}};
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  ASSERT_EQ(r.rec.starts.size(), 1u);  // the lost launch never started
  const AttemptRecord lost = r.rec.Attempt(0, 0, 0, 0);
  EXPECT_EQ(lost.outcome, Outcome::kKilled);
  EXPECT_EQ(lost.start_us, Sec(0.7));
  EXPECT_EQ(lost.end_us, Sec(0.7));
  const AttemptRecord rerun = r.rec.Attempt(0, 0, 0, 1);
  EXPECT_EQ(rerun.machine, MachineId(1));
  EXPECT_EQ(rerun.start_us, Sec(1.7));
  EXPECT_EQ(rerun.end_us, Sec(11.7));
}

TEST(EngineFailureTest, RecoveredMachineRunsTasksAgain) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "duration": 10, "demand": {"cpu": 1}}]}]})");
  GreedyScript s;
  SimOptions o;
  o.failures = {MachineFailure{.machine = MachineId(0), .at_us = Sec(4), .recover_us = Sec(6)}};
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0, 0).end_us, Sec(4));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0, 1).start_us, Sec(6));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0, 1).end_us, Sec(16));
  EXPECT_EQ(s.machine_log, (std::vector<std::pair<std::string, TimeUs>>{{"down 0", Sec(4)}, {"up 0", Sec(6)}}));
}

TEST(EngineFailureTest, KillReturnsTheTaskToReadyWithoutUsingAnAttempt) {
  const Workload w = TwoSingleCores();
  GreedyScript s;
  s.script.on_job_arrived = [](Context& ctx, JobId) { ctx.SetTimer(Sec(3), 0); };
  absl::Status second_kill;
  s.script.on_timer = [&](Context& ctx, uint64_t) {
    const TaskRef t{JobId(0), 0, 0};
    ASSERT_TRUE(ctx.Kill(t).ok());
    EXPECT_EQ(ctx.job(t.job).state(t), TaskState::kReady);
    EXPECT_EQ(ctx.cluster().allocated(MachineId(0)).micro(kCpu), 0);
    second_kill = ctx.Kill(t);
  };
  SimOptions o;
  o.max_attempts = 1;  // a kill must not count: one failure would fail the job
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(second_kill.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.stats.refused_decisions, 1u);
  const AttemptRecord killed = r.rec.Attempt(0, 0, 0, 0);
  EXPECT_EQ(killed.outcome, Outcome::kKilled);
  EXPECT_EQ(killed.end_us, Sec(3));
  const AttemptRecord rerun = r.rec.Attempt(0, 0, 0, 1);
  EXPECT_EQ(rerun.start_us, Sec(3));
  EXPECT_EQ(rerun.end_us, Sec(13));
  EXPECT_EQ(rerun.machine, MachineId(0));
  EXPECT_TRUE(r.rec.Job(0).succeeded);
  ASSERT_GE(s.ends.size(), 1u);
  EXPECT_EQ(s.ends[0].outcome, Outcome::kKilled);
  EXPECT_TRUE(s.ends[0].will_retry);
}

TEST(EngineFailureTest, TimersOfANodeAgentDieWithItsMachine) {
  // Node 0's agent sets a timer for 10 s, its machine fails at 2 and comes
  // back at 4 with a fresh agent: the dead agent's timer must not reach the
  // new one. A timer the new agent sets fires normally.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "duration": 20, "demand": {"cpu": 1}}]}]})");
  Script s;
  s.node_agents = true;
  s.on_ready = [](Context& ctx, const TaskRange& r) {
    ASSERT_TRUE(ctx.Launch(TaskRef{r.job, 0, 0}, MachineId(1)).ok());
    ctx.Send(Address::Node(MachineId(0)), Message{.type = 1});
  };
  s.on_machine_up = [](Context& ctx, MachineId m) { ctx.Send(Address::Node(m), Message{.type = 2}); };
  std::vector<std::pair<uint64_t, TimeUs>> fired;
  s.node_on_message = [](Context& ctx, MachineId, const Address&, const Message& m) {
    ctx.SetTimer(Sec(m.type == 1 ? 10 : 1), m.type);
  };
  s.node_on_timer = [&](Context& ctx, MachineId, uint64_t tag) { fired.emplace_back(tag, ctx.Now()); };
  SimOptions o;
  o.failures = {MachineFailure{.machine = MachineId(0), .at_us = Sec(2), .recover_us = Sec(4)}};
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(fired, (std::vector<std::pair<uint64_t, TimeUs>>{{2, Sec(5)}}));
}

}  // namespace
}  // namespace weft::sim::scripted
