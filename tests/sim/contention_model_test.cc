// File: tests/sim/contention_model_test.cc
//
// The contention execution model, on hand-computed cases: each machine
// shares cpu, disk and net among its running tasks in proportion to what
// they use; a task whose resource is oversubscribed progresses at
// capacity / total use; phases compete on their own resource only; memory
// use beyond capacity kills the newest task (outcome failed), which is then
// retried.
//
// With usage <= demand (which the workload reader enforces), a policy that
// does not overbook can never oversubscribe cpu, so the cpu cases use an
// overbooking script (the checker then allows the excess); net and disk
// phases ask for the machine's whole bandwidth, so they contend even under
// a policy that never overbooks.
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

SimOptions Contention() {
  SimOptions o;
  o.model = ExecutionModel::kContention;
  return o;
}

// One 1-cpu machine and one job of `stages` (JSON), all pinned to m0 by an
// overbooking greedy script.
Workload OneCore(const std::string& stages) {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 1, "mem": 4}}}}]}},
    "jobs": [{{"name": "j", "stages": [{}]}}]}})", stages));
}

struct Overbooker {
  Script script;
  Greedy greedy;
  Overbooker() {
    script.overbooking = true;
    greedy.pin = [](const TaskRef&) { return MachineId(0); };
    greedy.Install(script);
  }
};

TEST(ContentionModelTest, TwoTasksSharingOneCoreTakeTwiceAsLong) {
  const Workload w = OneCore(R"({"name": "a", "tasks": 2, "duration": 10, "demand": {"cpu": 1}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(20));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(20));
}

TEST(ContentionModelTest, SharingFollowsUsageNotDemand) {
  // Each demands a core but uses half of one: together they fit, no slowdown.
  const Workload w =
      OneCore(R"({"name": "a", "tasks": 2, "duration": 10, "demand": {"cpu": 1}, "usage": {"cpu": 0.5}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(10));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(10));
}

TEST(ContentionModelTest, TaskJoiningHalfwaySlowsTheFirstProportionally) {
  // A (10 s) starts at 0, B (10 s) at 5. From 5 both run at half speed: A's
  // last 5 s of work take 10 s (A ends at 15); by then B has done 5 s of
  // work and finishes the other 5 alone (B ends at 20).
  const Workload w = OneCore(R"({"name": "a", "tasks": 1, "duration": 10, "demand": {"cpu": 1}},
                                {"name": "b", "tasks": 1, "duration": 10, "demand": {"cpu": 1}})");
  Script s;
  s.overbooking = true;
  s.on_ready = [](Context& ctx, const TaskRange& range) {
    if (range.stage == 0) {
      ASSERT_TRUE(ctx.Launch(TaskRef{range.job, 0, 0}, MachineId(0)).ok());
    } else {
      ctx.SetTimer(Sec(5), 0);
    }
  };
  s.on_timer = [](Context& ctx, uint64_t) { ASSERT_TRUE(ctx.Launch(TaskRef{JobId(0), 1, 0}, MachineId(0)).ok()); };
  const RunOutcome r = RunEngine(w, s, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(15));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, Sec(5));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(20));
}

TEST(ContentionModelTest, UnequalUsersShareMaxMinNotInProportion) {
  // A uses 1 core for 10 s of work, B half a core for 4 s: 1.5 cores wanted
  // of 1. Max-min gives each half the core: all B wants, so B runs at full
  // speed and ends at 4; A runs at 1/2, has done 2 s of work by then and
  // ends alone at 4 + 8 = 12. (Proportional sharing would slow both to 2/3
  // and end B at 6.)
  const Workload w = OneCore(R"({"name": "a", "tasks": 1, "duration": 10, "demand": {"cpu": 1}},
    {"name": "b", "tasks": 1, "duration": 4, "demand": {"cpu": 1}, "usage": {"cpu": 0.5}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(4));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(12));
}

TEST(ContentionModelTest, ThreeWaySharingEndsOnTheExactMicrosecond) {
  // 3, 6 and 9 s of work on one core: all at 1/3 speed until the first ends
  // at 9 (3 s of work each done); the other two at 1/2 until the second ends
  // at 15; the last alone until 18. Rates of 1/3 are inexact in binary: the
  // end times must still be exact.
  const Workload w = OneCore(R"({"name": "a", "tasks": 3, "duration": 1, "durations": [3, 6, 9],
                                 "demand": {"cpu": 1}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(9));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(15));
  EXPECT_EQ(r.rec.Attempt(0, 0, 2).end_us, Sec(18));
}

TEST(ContentionModelTest, LongSharedTasksEndOnTheExactMicrosecond) {
  // Seven tasks of 1000 s on one core, one joining every 100 s: long
  // segments and many rate changes (sevenths) accumulate rounding error.
  // Hand-computed: while n run, each progresses 1/n per second.
  const Workload w = OneCore(R"({"name": "a", "tasks": 7, "duration": 1000, "demand": {"cpu": 1}})");
  Script s;
  s.overbooking = true;
  s.on_ready = [](Context& ctx, const TaskRange&) {
    for (uint64_t i = 0; i < 7; ++i) ctx.SetTimer(Sec(100) * static_cast<TimeUs>(i), i);
  };
  s.on_timer = [](Context& ctx, uint64_t i) {
    ASSERT_TRUE(ctx.Launch(TaskRef{JobId(0), 0, static_cast<uint32_t>(i)}, MachineId(0)).ok());
  };
  const RunOutcome r = RunEngine(w, s, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  // By t = 600 task 0 has done 100 + 100/2 + 100/3 + ... + 100/6 = 245 s of
  // work, task 1 145, task 2 95; then all seven share: task 0 ends at
  // 600 + 7 * 755 = 5885, when task 1 has 100 s left and task 2 150; six
  // share: task 1 ends at 5885 + 600 = 6485, task 2 has 50 left; five share:
  // task 2 ends at 6485 + 250 = 6735.
  for (uint32_t i = 0; i < 7; ++i) EXPECT_EQ(r.rec.Attempt(0, 0, i).start_us, Sec(100 * i));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(5885));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(6485));
  EXPECT_EQ(r.rec.Attempt(0, 0, 2).end_us, Sec(6735));
  // Then 4 share: task 3 (33.3 s left) ends at 6868.333...; 3 share: task 4
  // at 6943.333...; 2: task 5 at 6983.333...; alone, task 6 at 7000. Ends
  // fall on the next whole microsecond; the sliver of a microsecond that a
  // finishing task holds beyond its work is lost to the others, which here
  // pushes the very last end 1 us past 7000 s.
  EXPECT_EQ(r.rec.Attempt(0, 0, 3).end_us, 6'868'333'334);
  EXPECT_EQ(r.rec.Attempt(0, 0, 4).end_us, 6'943'333'334);
  EXPECT_EQ(r.rec.Attempt(0, 0, 5).end_us, 6'983'333'334);
  EXPECT_EQ(r.rec.Attempt(0, 0, 6).end_us, 7'000'000'001);
}

TEST(ContentionModelTest, FixedModelSharesTheSameCoreToo) {
  // Two 10 s tasks overbooked on one core: 20 core-seconds take 20 s in the
  // fixed model as well; only memory sets the two models apart.
  const Workload w = OneCore(R"({"name": "a", "tasks": 2, "duration": 10, "demand": {"cpu": 1}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(20));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(20));
}

// m: 4 cpu, net 100 MB/s, disk 50 MB/s; a policy that never overbooks.
Workload NetMachine(const std::string& stages) {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 4, "mem": 4, "disk": 50, "net": 100}}}}]}},
    "jobs": [{{"name": "j", "stages": [{}]}}]}})", stages));
}

TEST(ContentionModelTest, TwoNetPhasesShareTheBandwidth) {
  // 100 MB each at 100 MB/s: 1 s alone, 2 s together.
  const Workload w = NetMachine(R"({"name": "a", "tasks": 2, "demand": {"cpu": 1},
                                    "phases": [{"resource": "net", "work": 100}]})");
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunEngine(w, s, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(2));
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(2));
}

TEST(ContentionModelTest, PhasesCompeteOnlyOnTheirOwnResource) {
  // x: net 100 MB then cpu 1 core-s; y: net 100 MB; z: disk 50 MB.
  // x and y share the net (2 s each); z has the disk to itself (1 s); x's
  // cpu phase then takes 1 s (ends at 3).
  const Workload w = NetMachine(R"(
    {"name": "x", "tasks": 1, "demand": {"cpu": 1}, "phases": [{"resource": "net", "work": 100},
                                                              {"resource": "cpu", "work": 1}]},
    {"name": "y", "tasks": 1, "demand": {"cpu": 1}, "phases": [{"resource": "net", "work": 100}]},
    {"name": "z", "tasks": 1, "demand": {"cpu": 1}, "phases": [{"resource": "disk", "work": 50}]})");
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunEngine(w, s, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(3));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(2));
  EXPECT_EQ(r.rec.Attempt(0, 2, 0).end_us, Sec(1));
}

TEST(ContentionModelTest, MemoryOverCapacityKillsTheNewestTaskWhichIsRetried) {
  // Two tasks using 3 GB each on a 4 GB machine: the second one started is
  // killed as out-of-memory at once (outcome failed) and announced ready
  // again; the script relaunches it once the first has ended.
  const Workload w = OneCore(R"({"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 0.5, "mem": 3}})");
  Script s;
  s.overbooking = true;
  std::vector<TaskRef> waiting;
  std::vector<TaskEnd> ends;
  bool first = true;
  s.on_ready = [&](Context& ctx, const TaskRange& range) {
    for (uint32_t i = range.begin; i < range.end; ++i) {
      const TaskRef t{range.job, range.stage, i};
      if (first) {
        ASSERT_TRUE(ctx.Launch(t, MachineId(0)).ok());
      } else {
        waiting.push_back(t);
      }
    }
    first = false;
  };
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    ends.push_back(e);
    if (e.outcome != Outcome::kOk) return;
    for (const TaskRef& t : waiting) ASSERT_TRUE(ctx.Launch(t, MachineId(0)).ok());
    waiting.clear();
  };
  const RunOutcome r = RunEngine(w, s, Contention());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  ASSERT_EQ(ends.size(), 2u);  // the run ends before the last end is heard
  EXPECT_EQ(ends[0].task.index, 1u);
  EXPECT_EQ(ends[0].outcome, Outcome::kFailed);
  EXPECT_TRUE(ends[0].will_retry);
  const AttemptRecord oom = r.rec.Attempt(0, 0, 1, 0);
  EXPECT_EQ(oom.outcome, Outcome::kFailed);
  EXPECT_EQ(oom.start_us, 0);
  EXPECT_EQ(oom.end_us, 0);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).outcome, Outcome::kOk);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(1));
  const AttemptRecord retry = r.rec.Attempt(0, 0, 1, 1);
  EXPECT_EQ(retry.outcome, Outcome::kOk);
  EXPECT_EQ(retry.start_us, Sec(1));
  EXPECT_EQ(retry.end_us, Sec(2));
  EXPECT_EQ(retry.ready_us, 0);  // ready since the job arrived
  EXPECT_TRUE(r.rec.Job(0).succeeded);
}

TEST(ContentionModelTest, FixedModelDoesNotChargeMemoryOvercommit) {
  const Workload w = OneCore(R"({"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 0.5, "mem": 3}})");
  Overbooker s;
  const RunOutcome r = RunEngine(w, s.script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.attempts.size(), 2u);
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).outcome, Outcome::kOk);
}

TEST(ContentionModelTest, OutOfMemoryKillsCountAsFailedAttempts) {
  // With max_attempts 1 the out-of-memory kill fails the job, and the job's
  // other running task is killed with it.
  const Workload w = OneCore(R"({"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 0.5, "mem": 3}})");
  Overbooker s;
  SimOptions o = Contention();
  o.max_attempts = 1;
  const RunOutcome r = RunEngine(w, s.script, o);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 1).outcome, Outcome::kFailed);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).outcome, Outcome::kKilled);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, 0);
  EXPECT_FALSE(r.rec.Job(0).succeeded);
  EXPECT_EQ(r.rec.Job(0).end_us, 0);
  EXPECT_EQ(r.stats.jobs_failed, 1u);
}

}  // namespace
}  // namespace weft::sim::scripted
