// The machine profile's costs in sim::Engine (docs/model.md, "The machine
// profile"), each computed by hand: a launch latency delays every start; a
// scheduler's decision time queues launches; an oversubscribed core and a
// disk shared by several streams deliver less. With every cost at 0 the
// results are the pure max-min model's (the other tests of this binary).
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

}  // namespace
}  // namespace weft::sim::scripted
