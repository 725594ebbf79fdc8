// File: tests/sim/latency_test.cc
//
// Message latency and timers in sim::Engine: a message between two roles
// takes the run's one-way latency (a role's message to itself none); a
// scheduler's launch reserves at once and starts one latency later, a node
// agent's launch on its own machine starts at once; notifications (tasks
// ready, task ended, job finished) travel like messages; timers fire after
// exactly their delay, whatever the latency.
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

using policy::TaskState;

// m0, m1 (4 cpu each). j0 arrives at 1 s: one 2-second task. j1 arrives at
// 10 s (so the run outlives j0's notifications): one 1-second task.
constexpr char kTwoJobs[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [
    {"name": "j0", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 2, "demand": {"cpu": 1}}]},
    {"name": "j1", "arrival": 10, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}
  ]})";

constexpr TimeUs kLatency = Sec(0.005);

SimOptions WithLatency(TimeUs latency) {
  SimOptions o;
  o.latency_us = latency;
  return o;
}

using Log = std::vector<std::pair<std::string, TimeUs>>;

TEST(EngineLatencyTest, MessageArrivesOneLatencyLaterAndSelfMessagesAtOnce) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  s.node_agents = true;
  Greedy greedy;
  greedy.Install(s);
  Log log;
  s.on_job_arrived = [&](Context& ctx, JobId job) {
    if (job != JobId(0)) return;
    ctx.Send(Address::Node(MachineId(1)), Message{.type = 1});
    ctx.Send(ctx.self(), Message{.type = 2});
  };
  s.on_message = [&](Context& ctx, const Address& from, const Message& m) {
    log.emplace_back(fmt::format("scheduler got {} from {}", m.type, from.ToString()), ctx.Now());
  };
  s.node_on_message = [&](Context& ctx, MachineId self, const Address& from, const Message& m) {
    log.emplace_back(fmt::format("node {} got {} from {}", self.value(), m.type, from.ToString()), ctx.Now());
    ctx.Send(from, Message{.type = 3});
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(kLatency));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(log, (Log{{"scheduler got 2 from scheduler#0", Sec(1)},
                      {"node 1 got 1 from scheduler#0", Sec(1.005)},
                      {"scheduler got 3 from node#1", Sec(1.010)}}));
  EXPECT_EQ(r.stats.messages, 3u);
}

TEST(EngineLatencyTest, MessagesBetweenSchedulerReplicasPayTheLatency) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  s.schedulers = 2;
  Greedy greedy;
  greedy.Install(s);
  Log log;
  s.on_job_arrived = [&](Context& ctx, JobId job) {
    log.emplace_back(fmt::format("replica {} hears job {}", ctx.self().index, job.value()), ctx.Now());
    if (job == JobId(0)) ctx.Send(Address::Scheduler(1), Message{.type = 7});
  };
  s.on_message = [&](Context& ctx, const Address& from, const Message&) {
    log.emplace_back(fmt::format("replica {} got message from {}", ctx.self().index, from.ToString()), ctx.Now());
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(kLatency));
  ASSERT_TRUE(r.status.ok()) << r.status;
  // Job j goes to replica j % 2.
  EXPECT_EQ(log, (Log{{"replica 0 hears job 0", Sec(1)},
                      {"replica 1 got message from scheduler#0", Sec(1.005)},
                      {"replica 1 hears job 1", Sec(10)}}));
}

TEST(EngineLatencyTest, SchedulerLaunchReservesAtOnceAndStartsOneLatencyLater) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  Log log;
  s.on_job_arrived = [&](Context& ctx, JobId j) { log.emplace_back(fmt::format("arrived {}", j.value()), ctx.Now()); };
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    log.emplace_back(fmt::format("ready {}", range.job.value()), ctx.Now());
    const TaskRef t{range.job, 0, 0};
    ASSERT_TRUE(ctx.Launch(t, MachineId(0)).ok());
    EXPECT_EQ(ctx.job(t.job).state(t), TaskState::kLaunched);
    EXPECT_EQ(ctx.cluster().allocated(MachineId(0)).micro(kCpu), kMicroUnits);
    EXPECT_EQ(ctx.cluster().running(MachineId(0)), 1u);
    EXPECT_EQ(ctx.cluster().used(MachineId(0)).micro(kCpu), 0);  // not started yet
  };
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    log.emplace_back(fmt::format("ended {}", e.task.job.value()), ctx.Now());
    if (e.task.job != JobId(0)) return;
    EXPECT_EQ(e.start_us, Sec(1.010));
    EXPECT_EQ(e.end_us, Sec(3.010));
  };
  s.on_job_finished = [&](Context& ctx, JobId j, bool ok) {
    log.emplace_back(fmt::format("finished {} {}", j.value(), ok), ctx.Now());
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(kLatency));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  const AttemptRecord a = r.rec.Attempt(0, 0, 0);
  EXPECT_EQ(a.ready_us, Sec(1));
  EXPECT_EQ(a.start_us, Sec(1.010));
  EXPECT_EQ(a.end_us, Sec(3.010));
  EXPECT_EQ(a.machine, MachineId(0));
  EXPECT_EQ(r.rec.Job(0).start_us, Sec(1.010));
  EXPECT_EQ(r.rec.Job(0).end_us, Sec(3.010));
  EXPECT_EQ(r.rec.Job(1).end_us, Sec(11.010));
  // The job arrives at the scheduler at once; its tasks' readiness, the
  // task's end and the job's end are notifications: one latency each.
  EXPECT_EQ(log, (Log{{"arrived 0", Sec(1)},
                      {"ready 0", Sec(1.005)},
                      {"ended 0", Sec(3.015)},
                      {"finished 0 true", Sec(3.015)},
                      {"arrived 1", Sec(10)},
                      {"ready 1", Sec(10.005)}}));
}

TEST(EngineLatencyTest, NodeAgentLaunchOnItsOwnMachineStartsAtOnce) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  s.node_agents = true;
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    ctx.Send(Address::Node(MachineId(1)), Message{.type = 1, .task = TaskRef{range.job, 0, 0}});
  };
  std::vector<TimeUs> launched_at;
  s.node_on_message = [&](Context& ctx, MachineId self, const Address&, const Message& m) {
    EXPECT_EQ(ctx.Launch(m.task, MachineId(0)).code(), absl::StatusCode::kFailedPrecondition)
        << "a node agent may launch only on its own machine";
    ASSERT_TRUE(ctx.Launch(m.task, self).ok());
    EXPECT_EQ(ctx.job(m.task.job).state(m.task), TaskState::kRunning);
    EXPECT_EQ(ctx.cluster().used(self).micro(kCpu), kMicroUnits);
    launched_at.push_back(ctx.Now());
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(kLatency));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  // Ready at 1 s, heard by the scheduler at 1.005, by the agent at 1.010,
  // which starts it there and then.
  EXPECT_EQ(launched_at, (std::vector<TimeUs>{Sec(1.010), Sec(10.010)}));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, Sec(1.010));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).machine, MachineId(1));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(3.010));
  EXPECT_EQ(r.stats.refused_decisions, 2u);
}

TEST(EngineLatencyTest, TimersFireAfterExactlyTheirDelay) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  Log log;
  s.on_job_arrived = [&](Context& ctx, JobId job) {
    if (job != JobId(0)) return;
    ctx.SetTimer(Sec(0.3), 1);
    ctx.SetTimer(Sec(0.1), 2);
    ctx.SetTimer(0, 3);
    ctx.SetTimer(Sec(0.1), 4);
    ctx.SetTimer(-5, 5);  // a negative delay fires now
  };
  s.on_timer = [&](Context& ctx, uint64_t tag) {
    log.emplace_back(fmt::format("timer {}", tag), ctx.Now());
    if (tag == 1) {
      ASSERT_TRUE(ctx.Launch(TaskRef{JobId(0), 0, 0}, MachineId(0)).ok());
    }
  };
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    if (range.job == JobId(1)) {
      ASSERT_TRUE(ctx.Launch(TaskRef{range.job, 0, 0}, MachineId(0)).ok());
    }
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(kLatency));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(log, (Log{{"timer 3", Sec(1)}, {"timer 5", Sec(1)}, {"timer 2", Sec(1.1)}, {"timer 4", Sec(1.1)},
                      {"timer 1", Sec(1.3)}}));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, Sec(1.305));
}

TEST(EngineLatencyTest, WithoutLatencyEverythingHappensAtTheSameInstantInCausalOrder) {
  const Workload w = Parse(kTwoJobs);
  Script s;
  Greedy greedy;
  greedy.Install(s);
  Log log;
  s.on_job_arrived = [&](Context& ctx, JobId j) { log.emplace_back(fmt::format("arrived {}", j.value()), ctx.Now()); };
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    log.emplace_back(fmt::format("ready {}", range.job.value()), ctx.Now());
    greedy.Add(range);
    greedy.Place(ctx);
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(log, (Log{{"arrived 0", Sec(1)}, {"ready 0", Sec(1)}, {"arrived 1", Sec(10)}, {"ready 1", Sec(10)}}));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, Sec(1));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(3));
  EXPECT_EQ(r.rec.Attempt(1, 0, 0).end_us, Sec(11));
  EXPECT_EQ(r.stats.end_us, Sec(11));
}

}  // namespace
}  // namespace weft::sim::scripted
