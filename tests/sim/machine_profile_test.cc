// The machine profile's costs in sim::Engine (docs/model.md, "The machine
// profile"), each computed by hand: a launch latency delays every start; a
// scheduler's decision and message times queue its work; an oversubscribed
// core and a disk shared by several streams deliver less; memory beyond
// capacity pages within swap and is killed only past it. With every cost at
// 0 the results are the pure max-min model's (the other tests of this binary).
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

RunOutcome RunWith(const Workload& w, Script& s, const MachineProfile& p,
                   ExecutionModel model = ExecutionModel::kFixed) {
  SimOptions options;
  options.model = model;
  options.profile = p;
  return RunEngine(w, s, options);
}

// One 1 s task on an idle machine: with 0.5 s of launch latency it starts
// at 0.5 s and ends at 1.5 s.
TEST(MachineProfileTest, LaunchLatencyDelaysTheStart) {
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunWith(w, s, MachineProfile{.launch_s = 0.5});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, 500'000);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, 1'500'000);
}

// Four tasks decided at 0 by one scheduler spending 0.1 s on each decision:
// they start at 0.1, 0.2, 0.3 and 0.4 s (the queue shows in the delay).
TEST(MachineProfileTest, DecisionsQueueAtTheScheduler) {
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 1}}]}]})");
  Script s;
  Greedy g;
  g.Install(s);
  const RunOutcome r = RunWith(w, s, MachineProfile{.decision_s = 0.1});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(r.rec.Attempt(0, 0, i).start_us, 100'000 * (i + 1)) << i;
}

// Two 1-core 10 s tasks overbooked on one core: max-min alone gives each 0.5
// core (both end at 20 s); with a loss of 0.5 per unit of over-subscription
// (k = 2) the core delivers 1 / 1.5: each gets 1/3 and both end at 30 s.
TEST(MachineProfileTest, AnOversubscribedCoreDeliversLess) {
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "duration": 10, "demand": {"cpu": 1, "mem": 1}}]}]})");
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    for (const auto& [loss, end_s] : {std::pair{0.0, 20}, std::pair{0.5, 30}}) {
      Script s;
      s.overbooking = true;
      Greedy g;
      g.pin = [](const TaskRef&) { return MachineId(0); };
      g.Install(s);
      const RunOutcome r = RunWith(w, s, MachineProfile{.cpu_oversubscription_loss = loss}, model);
      ASSERT_TRUE(r.status.ok()) << r.status;
      EXPECT_TRUE(r.checker_ok) << Violations(r);
      EXPECT_NEAR(static_cast<double>(r.rec.Job(0).end_us), Sec(end_s), 2) << "loss " << loss;
    }
  }
}

// Two tasks each made of one 100 MB disk phase on a 100 MB/s disk: shared,
// both end at 2 s; with a loss of 0.25 per extra stream the disk delivers
// 100 / 1.25 = 80 MB/s, and both end at 2.5 s.
TEST(MachineProfileTest, ADiskSharedByStreamsDeliversLess) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 8, "disk": 100}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "demand": {"cpu": 1, "mem": 1},
              "phases": [{"resource": "disk", "work": 100}]}]}]})");
  for (const auto& [loss, end_us] : {std::pair{0.0, 2'000'000}, std::pair{0.25, 2'500'000}}) {
    Script s;
    s.overbooking = true;
    Greedy g;
    g.pin = [](const TaskRef&) { return MachineId(0); };
    g.Install(s);
    const RunOutcome r = RunWith(w, s, MachineProfile{.disk_stream_loss = loss});
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    EXPECT_NEAR(static_cast<double>(r.rec.Job(0).end_us), end_us, 2) << "loss " << loss;
  }
}

// A scheduler that sends one message to each of four node agents at 0 and
// hears a reply from each, with 0.1 s of service per message: its sends
// leave at 0.1, 0.2, 0.3 and 0.4 s, and the replies, arriving meanwhile,
// wait for it: it takes them at 0.5, 0.6, 0.7 and 0.8 s. It then launches
// the job's task, which starts at 0.8 s. At most ten messages a second.
TEST(MachineProfileTest, MessagesQueueAtTheScheduler) {
  const Workload w = Parse(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "count": 4,
      "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})");
  for (const double message_s : {0.0, 0.1}) {
    Script s;
    s.node_agents = true;
    std::vector<TimeUs> replies;
    s.on_job_arrived = [](Context& ctx, JobId) {
      for (uint32_t m = 0; m < 4; ++m) ctx.Send(Address::Node(MachineId(m)), Message{.type = 1});
    };
    s.node_on_message = [](Context& ctx, MachineId, const Address& from, const Message&) {
      ctx.Send(from, Message{.type = 2});
    };
    s.on_message = [&](Context& ctx, const Address&, const Message&) {
      replies.push_back(ctx.Now());
      if (replies.size() == 4) {
        ASSERT_TRUE(ctx.Launch(TaskRef{JobId(0), 0, 0}, MachineId(0)).ok());
      }
    };
    const RunOutcome r = RunWith(w, s, MachineProfile{.message_s = message_s});
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    if (message_s == 0) {
      EXPECT_EQ(replies, (std::vector<TimeUs>{0, 0, 0, 0}));
    } else {
      EXPECT_EQ(replies, (std::vector<TimeUs>{Sec(0.5), Sec(0.6), Sec(0.7), Sec(0.8)}));
    }
    EXPECT_EQ(r.rec.Attempt(0, 0, 0).start_us, replies.back());
  }
}

// Memory over-committed on a 4 GB machine: two tasks using 3 GB each (10 s
// and 20 s of work). Within swap, the machine pages: 2 GB of the 6 in use
// are out, a third, so with a paging slowdown of 3 both run at
// 1 / (1 + 3 / 3) = 0.5: the first ends at 20 s, and the second, alone and
// within memory from then, does its last 10 s at full speed (30 s). Past
// memory + swap the newest is killed as out-of-memory at once and rerun
// when the first has ended (10 s; it ends at 30 s). Without a paging cost
// the swap is free (10 and 20 s); the fixed model charges no memory at all.
TEST(MachineProfileTest, MemoryPagesWithinSwapAndIsKilledOnlyPastIt) {
  struct Case {
    double swap_gb;
    double paging;
    ExecutionModel model;
    TimeUs end0;
    TimeUs end1;
    bool killed;
  };
  for (const Case& c : {Case{4, 3, ExecutionModel::kContention, Sec(20), Sec(30), false},
                        Case{4, 0, ExecutionModel::kContention, Sec(10), Sec(20), false},
                        Case{1, 3, ExecutionModel::kContention, Sec(10), Sec(30), true},
                        Case{4, 3, ExecutionModel::kFixed, Sec(10), Sec(20), false}}) {
    SCOPED_TRACE(fmt::format("swap {} GB, paging {}, {}", c.swap_gb, c.paging, ExecutionModelName(c.model)));
    const Workload w = Parse(fmt::format(R"({{"weft": 1, "cluster": {{"machines": [{{"name": "m",
        "capacity": {{"cpu": 4, "mem": 4}}, "swap": {}}}]}},
      "jobs": [{{"name": "j", "stages": [{{"name": "s", "tasks": 2, "duration": 10, "durations": [10, 20],
                "demand": {{"cpu": 1, "mem": 3}}}}]}}]}})",
                                         c.swap_gb));
    Script s;
    s.overbooking = true;
    std::vector<TaskRef> waiting;
    s.on_ready = [&](Context& ctx, const TaskRange& range) {
      for (uint32_t i = range.begin; i < range.end; ++i) {
        const TaskRef t{range.job, range.stage, i};
        // A task announced again after an out-of-memory kill waits for room.
        if (ctx.Now() == 0 && waiting.empty() && range.end - range.begin == 2) {
          ASSERT_TRUE(ctx.Launch(t, MachineId(0)).ok());
        } else {
          waiting.push_back(t);
        }
      }
    };
    s.on_ended = [&](Context& ctx, const TaskEnd& e) {
      if (e.outcome != Outcome::kOk) return;
      for (const TaskRef& t : waiting) ASSERT_TRUE(ctx.Launch(t, MachineId(0)).ok());
      waiting.clear();
    };
    const RunOutcome r = RunWith(w, s, MachineProfile{.paging_slowdown = c.paging}, c.model);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    EXPECT_NEAR(static_cast<double>(r.rec.Attempt(0, 0, 0).end_us), static_cast<double>(c.end0), 2);
    const uint32_t last = c.killed ? 1 : 0;
    if (c.killed) {
      EXPECT_EQ(r.rec.Attempt(0, 0, 1, 0).outcome, Outcome::kFailed);
    }
    EXPECT_EQ(r.rec.Attempt(0, 0, 1, last).outcome, Outcome::kOk);
    EXPECT_NEAR(static_cast<double>(r.rec.Attempt(0, 0, 1, last).end_us), static_cast<double>(c.end1), 2);
  }
}

}  // namespace
}  // namespace weft::sim::scripted
