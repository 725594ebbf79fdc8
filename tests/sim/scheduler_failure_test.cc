// File: tests/sim/scheduler_failure_test.cc
//
// Scheduler replica failure (SimOptions::scheduler_failures, Sparrow §4.3):
// the replica's role is destroyed (its timers and mail are dropped), the
// active jobs homed at it move to the next live replica, which hears
// OnJobArrived again and OnTasksReady for exactly the tasks still ready,
// after the latency; later task ends and new jobs go to the new home; node
// agents and surviving replicas hear OnSchedulerDown; bad failure lists are
// rejected before anything runs.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

// Two machines of 4 cores; job j0 (3 tasks of 2 s) at 0 homed at replica 0,
// job j1 (1 task) at 0 homed at replica 1, job j2 (1 task) at 3 s.
Workload ThreeJobs() {
  return Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j0", "stages": [{"name": "a", "tasks": 3, "duration": 2, "demand": {"cpu": 1}}]},
             {"name": "j1", "stages": [{"name": "a", "tasks": 1, "duration": 2, "demand": {"cpu": 1}}]},
             {"name": "j2", "arrival": 3, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
}

struct Heard {
  std::vector<std::string> log;
  void Add(const Context& ctx, const std::string& what) {
    log.push_back(fmt::format("{} r{} {}", ctx.Now(), ctx.self().index, what));
  }
};

// Each replica launches only task 0 of each range at once (on m0) and keeps
// the rest; a timer at 5 s launches what it kept. Replica 0 dies at 1 s.
struct FailoverScript {
  Script script;
  Heard heard;
  std::vector<std::vector<TaskRef>> kept{2};
  FailoverScript() {
    script.schedulers = 2;
    script.node_agents = true;
    script.on_job_arrived = [this](Context& ctx, JobId j) { heard.Add(ctx, fmt::format("arrived j{}", j.value())); };
    script.on_ready = [this](Context& ctx, const TaskRange& r) {
      heard.Add(ctx, fmt::format("ready j{} [{},{})", r.job.value(), r.begin, r.end));
      for (uint32_t i = r.begin; i < r.end; ++i) {
        const TaskRef t{r.job, r.stage, i};
        if (i == 0) {
          EXPECT_TRUE(ctx.Launch(t, MachineId(0)).ok());
        } else {
          kept[ctx.self().index].push_back(t);
        }
      }
      ctx.SetTimer(Sec(5) - ctx.Now(), 0);
    };
    script.on_timer = [this](Context& ctx, uint64_t) {
      heard.Add(ctx, "timer");
      for (const TaskRef& t : kept[ctx.self().index]) (void)ctx.Launch(t, MachineId(1));
      kept[ctx.self().index].clear();
    };
    script.on_ended = [this](Context& ctx, const TaskEnd& e) {
      heard.Add(ctx, fmt::format("ended j{} {}", e.task.job.value(), e.task.index));
    };
    script.on_scheduler_down = [this](Context& ctx, uint32_t r) { heard.Add(ctx, fmt::format("down {}", r)); };
    script.node_on_scheduler_down = [this](Context& ctx, MachineId m, uint32_t r) {
      heard.log.push_back(fmt::format("{} node{} down {}", ctx.Now(), m.value(), r));
    };
  }
};

TEST(SchedulerFailureTest, JobsFailOverWithTheirStillReadyTasks) {
  FailoverScript s;
  SimOptions o;
  o.latency_us = Sec(0.1);
  o.scheduler_failures = {{0, Sec(1)}};
  const RunOutcome r = RunEngine(ThreeJobs(), s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  const std::vector<std::string> want = {
      "0 r0 arrived j0", "0 r1 arrived j1", "100000 r0 ready j0 [0,3)", "100000 r1 ready j1 [0,1)",
      // Replica 0 dies at 1 s: j0 moves to replica 1 with tasks 1 and 2
      // (task 0 runs on); everyone alive hears of it after the latency.
      "1100000 r1 arrived j0", "1100000 r1 ready j0 [1,3)", "1100000 r1 down 0", "1100000 node0 down 0",
      "1100000 node1 down 0",
      // Task ends go to the new home; replica 0's timer never fires.
      "2300000 r1 ended j0 0", "2300000 r1 ended j1 0",
      // j2 (job 2, home 2 % 2 = 0, dead) goes to replica 1.
      "3000000 r1 arrived j2", "3100000 r1 ready j2 [0,1)", "4300000 r1 ended j2 0", "5000000 r1 timer",
      "5000000 r1 timer", "5000000 r1 timer"};  // one per range heard; the run ends at 7.1 s with j0
  EXPECT_EQ(s.heard.log, want);
  EXPECT_EQ(r.stats.jobs_succeeded, 3u);
}

TEST(SchedulerFailureTest, RejectsUnknownReplicasAndLosingEveryReplica) {
  FailoverScript s;
  SimOptions bad_replica;
  bad_replica.scheduler_failures = {{2, Sec(1)}};
  EXPECT_EQ(RunEngine(ThreeJobs(), s.script, bad_replica).status.code(), absl::StatusCode::kInvalidArgument);
  SimOptions all;
  all.scheduler_failures = {{0, Sec(1)}, {1, Sec(2)}};
  EXPECT_EQ(RunEngine(ThreeJobs(), s.script, all).status.code(), absl::StatusCode::kInvalidArgument);
}

TEST(SchedulerFailureTest, MailToADeadReplicaIsDropped) {
  // A node agent messages replica 0 after it died: the message is dropped.
  Script script;
  script.schedulers = 2;
  script.node_agents = true;
  Greedy greedy;
  greedy.Install(script);
  script.node_on_scheduler_down = [](Context& ctx, MachineId, uint32_t r) {
    ctx.Send(Address::Scheduler(r), Message{.type = 7});
  };
  int received = 0;
  script.on_message = [&](Context&, const Address&, const Message&) { ++received; };
  SimOptions o;
  o.scheduler_failures = {{0, Sec(1)}};
  const RunOutcome r = RunEngine(ThreeJobs(), script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(received, 0);
  EXPECT_EQ(r.stats.messages_dropped, 2u);  // one from each node agent
}

}  // namespace
}  // namespace weft::sim::scripted
