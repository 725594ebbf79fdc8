// File: tests/sim/job_lifecycle_test.cc
//
// What the engine keeps of a job once it has ended: its per-task run state
// (attempt counters, slots, ready times, pipelined counters) is really given
// back, so memory follows the active jobs; its task states stay, so that a
// role that hears of the job afterwards (task ended, job finished arrive
// after the end) can still read a well-defined JobView.
#include <vector>

#include "gtest/gtest.h"
#include "scripted_policy.h"
#include "sim/engine_impl.h"

namespace weft::sim::scripted {
namespace {

using policy::TaskState;

constexpr char kPipelined[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 8, "mem": 8}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "p", "tasks": 3, "duration": 1, "demand": {"cpu": 1}},
    {"name": "q", "tasks": 3, "duration": 1, "demand": {"cpu": 1}, "after": [{"stage": "p", "kind": "pipelined"}]}]},
    {"name": "later", "arrival": 10, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(JobLifecycleTest, FinishedJobGivesBackItsPerTaskState) {
  const Workload w = Parse(kPipelined);
  Script s;
  Greedy greedy;
  greedy.Install(s);
  ScriptedPolicy policy(s);
  EngineCore core(w, policy, SimOptions{});
  ASSERT_TRUE(core.Run().ok());
  for (uint32_t j = 0; j < w.jobs.size(); ++j) {
    const JobRun& jr = *core.jobs().run(JobId(j));
    EXPECT_FALSE(jr.active);
    EXPECT_EQ(jr.failures.capacity(), 0u);
    EXPECT_EQ(jr.attempts.capacity(), 0u);
    EXPECT_EQ(jr.slot.capacity(), 0u);
    EXPECT_EQ(jr.task_ready_us.capacity(), 0u);
    ASSERT_NE(jr.progress, nullptr);
    EXPECT_EQ(jr.progress->pipelined_left.capacity(), 0u);
    EXPECT_TRUE(jr.progress->finished);
  }
  EXPECT_EQ(core.jobs().run(JobId(0))->progress->tasks, std::vector<TaskState>(6, TaskState::kDone));
}

TEST(JobLifecycleTest, ViewOfAJobThatEndedStaysReadable) {
  // With latency, the end of j's last task is heard after j has finished.
  const Workload w = Parse(kPipelined);
  Script s;
  s.knowledge = policy::Knowledge::kSemiClairvoyant;  // its Duration reads task states
  Greedy greedy;
  greedy.Install(s);
  int checked = 0;
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    greedy.Place(ctx);
    const policy::JobView job = ctx.job(e.task.job);
    if (!job.finished()) return;
    ++checked;
    EXPECT_EQ(job.state(e.task), TaskState::kDone);
    EXPECT_EQ(job.Duration(e.task), Sec(1));
    EXPECT_EQ(job.tasks_done(), 6u);
  };
  SimOptions o;
  o.latency_us = Sec(0.005);
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(checked, 3);  // q0, q1 and q2 all end at the same instant
}

TEST(JobLifecycleTest, ViewOfAFailedJobShowsItsAbandonedTasks) {
  const Workload w = Parse(kPipelined);
  Script s;
  Greedy greedy;
  greedy.Install(s);
  std::vector<TaskState> seen;
  s.on_job_finished = [&](Context& ctx, JobId job, bool ok) {
    if (ok || job != JobId(0)) return;
    const policy::JobView view = ctx.job(job);
    for (uint32_t i = 0; i < 3; ++i) seen.push_back(view.state(TaskRef{job, 1, i}));
  };
  SimOptions o;
  o.task_failure_prob = 1;
  o.max_attempts = 1;
  const RunOutcome r = RunEngine(w, s, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(seen, std::vector<TaskState>(3, TaskState::kAbandoned));
}

}  // namespace
}  // namespace weft::sim::scripted
