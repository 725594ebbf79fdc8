// File: tests/sim/locality_test.cc
//
// The locality cost in sim::Engine (docs/workload-format.md "locality_cost",
// model/locality.h): a task placed off the machines holding its input waits
// out its remote read before its work; on one of them, or without a
// locality list, it pays nothing. The issue's two-rack example with exact
// read times, in both execution models, for both forms of the cost; the
// schedule checker accepts those longer ends and refuses shorter ones; the
// run's summary reports the time lost.
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "metrics/run_metrics.h"
#include "metrics/schedule_checker.h"
#include "nlohmann/json.hpp"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

// Two racks: a0 and a1 in rack 0, b in rack 1. Each machine runs all tasks
// at once (no contention), and its 1000 MB/s interfaces never limit the
// reads (each is capped at the cost's 100 or 50 MB/s). Three 2 s tasks read `input` MB held on a0; task
// i is pinned to machine i (a0: node-local, a1: rack-local, b: remote), and
// a fourth task without a locality list runs on b.
Workload TwoRacks(const std::string& cost, const std::string& input = R"("input_mb": 128,)") {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [
      {{"name": "a", "count": 2, "capacity": {{"cpu": 4, "mem": 4, "disk": 100, "net": 1000}}}},
      {{"name": "b", "capacity": {{"cpu": 4, "mem": 4, "disk": 100, "net": 1000}}}}]{}}},
    "jobs": [{{"name": "j", "stages": [
      {{"name": "map", "tasks": 4, "duration": 2, "demand": {{"cpu": 1}}, {}
       "locality": [["a0"], ["a0"], ["a0"]]}}]}}]}})",
                           cost.empty() ? "" : ", \"locality_cost\": " + cost, input));
}

// Pinned: a Greedy script that places task i on machine i (the fourth on b).
// Not movable: the script's closures point at its greedy.
struct Pinned {
  Script script;
  Greedy greedy;
  Pinned() {
    greedy.pin = [](const TaskRef& t) { return MachineId(t.index < 3 ? t.index : 2); };
    greedy.Install(script);
  }
  Pinned(const Pinned&) = delete;
};

RunOutcome RunPinned(const Workload& w, ExecutionModel model) {
  Pinned pinned;
  SimOptions options;
  options.model = model;
  return RunEngine(w, pinned.script, options);
}

// Ends of the four tasks, in seconds, in both models.
void ExpectEnds(const Workload& w, double node, double rack, double remote, double none) {
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunPinned(w, model);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    EXPECT_EQ(r.rec.Attempt(0, 0, 0).locality, Locality::kNode);
    EXPECT_EQ(r.rec.Attempt(0, 0, 1).locality, Locality::kRack);
    EXPECT_EQ(r.rec.Attempt(0, 0, 2).locality, Locality::kRemote);
    EXPECT_EQ(r.rec.Attempt(0, 0, 3).locality, Locality::kNone);
    EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(node));
    EXPECT_EQ(r.rec.Attempt(0, 0, 1).end_us, Sec(rack));
    EXPECT_EQ(r.rec.Attempt(0, 0, 2).end_us, Sec(remote));
    EXPECT_EQ(r.rec.Attempt(0, 0, 3).end_us, Sec(none));
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(r.rec.Attempt(0, 0, i).start_us, 0);
  }
}

TEST(LocalityCostTest, BandwidthsChargeTheInputReadAtRackAndCrossRackSpeed) {
  // 128 MB at 100 MB/s (same rack) = 1.28 s; at 50 MB/s (other rack) = 2.56 s.
  ExpectEnds(TwoRacks(R"({"rack_mbps": 100, "cross_rack_mbps": 50})"), 2, 3.28, 4.56, 2);
}

TEST(LocalityCostTest, FactorsSlowTheReadPartAtTheMachinesDiskBandwidth) {
  // Read part: 128 MB at the machine's 100 MB/s of disk = 1.28 s (below the
  // 2 s duration). Rack: (1.5-1) x 1.28 = 0.64 s; remote: (3-1) x 1.28 = 2.56 s.
  ExpectEnds(TwoRacks(R"({"rack_factor": 1.5, "remote_factor": 3})"), 2, 2.64, 4.56, 2);
}

TEST(LocalityCostTest, FactorsWithoutInputSizeSlowTheWholeTask) {
  // No input_mb: the whole 2 s is the read part. Rack: +1 s; remote: +4 s.
  ExpectEnds(TwoRacks(R"({"rack_factor": 1.5, "remote_factor": 3})", ""), 2, 3, 6, 2);
}

TEST(LocalityCostTest, BandwidthsWithoutInputSizeCostNothing) {
  ExpectEnds(TwoRacks(R"({"rack_mbps": 100, "cross_rack_mbps": 50})", ""), 2, 2, 2, 2);
}

TEST(LocalityCostTest, OffByDefault) { ExpectEnds(TwoRacks(""), 2, 2, 2, 2); }

TEST(LocalityCostTest, SummaryReportsTheTimeLostOnlyWithTheCostOn) {
  const auto summary = [](const Workload& w) {
    RunMetrics metrics(w);
    Pinned pinned;
    ScriptedPolicy policy(pinned.script);
    Engine engine(w, policy, SimOptions{});
    engine.AddObserver(&metrics);
    EXPECT_TRUE(engine.Run().ok());
    return metrics.summary().ToJson();
  };
  const auto on = summary(TwoRacks(R"({"rack_mbps": 100, "cross_rack_mbps": 50})"));
  EXPECT_DOUBLE_EQ(on["locality"]["remote_read_s"].get<double>(), 3.84);
  EXPECT_EQ(on["locality"]["remote_read_tasks"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(on["locality"]["node"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(on["locality"]["remote"].get<double>(), 0.25);
  const auto off = summary(TwoRacks(""));
  EXPECT_FALSE(off["locality"].contains("remote_read_s"));
  EXPECT_EQ(off["locality"].size(), 4u);
}

TEST(LocalityCostTest, CheckerRefusesARemoteTaskEndingBeforeItsReadIsDone) {
  // Run without the cost, check against the same workload with it: the rack-
  // and cross-rack-local tasks end at 2 s, before their 1.28 s and 2.56 s
  // reads plus work could; only the 2.56 s read alone is longer than 2 s.
  const Workload off = TwoRacks("");
  const Workload on = TwoRacks(R"({"rack_mbps": 100, "cross_rack_mbps": 50})");
  Pinned pinned;
  ScriptedPolicy policy(pinned.script);
  Engine engine(off, policy, SimOptions{});
  ScheduleChecker checker(on, 0);
  engine.AddObserver(&checker);
  ASSERT_TRUE(engine.Run().ok());
  ASSERT_EQ(checker.violations().size(), 1u) << checker.violations().size();
  EXPECT_EQ(checker.violations()[0],
            "job \"j\" stage \"map\" task 2 ended ok at 2.000000 s on b (remote) 2.000000 s after its start, "
            "before its remote read of 2.560000 s was done");
}

// Reads are flows (docs/model.md, "Flows"): S (no cores, 100 MB/s out)
// holds two tasks' 1000 MB inputs; they run on X and Y (1000 MB/s each), in
// other racks, capped at 100 MB/s each. S's interface out is shared: 50 MB/s
// each, so both reads take 20 s and both tasks end at 21 s (a read alone
// would take 10 s). The flows are in the records, and the checker agrees.
Workload OneHolderTwoReaders(const std::string& uplink = "") {
  return Parse(fmt::format(R"({{"weft": 1, "cluster": {{"machines": [
      {{"name": "S", "capacity": {{"cpu": 0, "mem": 4, "disk": 100, "net": 100}}}},
      {{"name": "X", "capacity": {{"cpu": 1, "mem": 4, "disk": 1000, "net": 1000}}}},
      {{"name": "Y", "capacity": {{"cpu": 1, "mem": 4, "disk": 1000, "net": 1000}}}}],
    "locality_cost": {{"rack_mbps": 100, "cross_rack_mbps": 100}}{}}},
    "jobs": [{{"name": "j1", "stages": [{{"name": "s", "tasks": 1, "duration": 1, "input_mb": 1000,
               "demand": {{"cpu": 1, "mem": 1}}, "locality": [["S"]]}}]}},
             {{"name": "j2", "stages": [{{"name": "s", "tasks": 1, "duration": 1, "input_mb": 1000,
               "demand": {{"cpu": 1, "mem": 1}}, "locality": [["S"]]}}]}}]}})",
                           uplink));
}

TEST(LocalityCostTest, ReadsFromOneHolderShareItsInterface) {
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunGreedy(OneHolderTwoReaders(), model);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(21));
    EXPECT_EQ(r.rec.Attempt(1, 0, 0).end_us, Sec(21));
  }
}

// A 4:1 oversubscribed uplink: each machine's rack is its own (one group,
// one rack each), so S's rack uplink out is 100 / 4 = 25 MB/s, shared by
// both reads: 12.5 MB/s each, 80 s, ends at 81 s.
TEST(LocalityCostTest, ReadsAcrossRacksShareTheUplink) {
  const RunOutcome r = RunGreedy(OneHolderTwoReaders(R"(, "rack_uplink": {"oversubscription": 4})"));
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(81));
  EXPECT_EQ(r.rec.Attempt(1, 0, 0).end_us, Sec(81));
}

// The checker reads the flows: the same records against a workload whose
// holder has half the bandwidth say that S's interface carried 2000 MB in
// 20 s where 50 MB/s allows 1000.
TEST(LocalityCostTest, CheckerRefusesFlowsBeyondAnInterfacesCapacity) {
  const Workload fast = OneHolderTwoReaders();
  nlohmann::json doc = nlohmann::json::parse(R"({"weft": 1, "cluster": {"machines": [
      {"name": "S", "capacity": {"cpu": 0, "mem": 4, "disk": 100, "net": 50}},
      {"name": "X", "capacity": {"cpu": 1, "mem": 4, "disk": 1000, "net": 1000}},
      {"name": "Y", "capacity": {"cpu": 1, "mem": 4, "disk": 1000, "net": 1000}}],
    "locality_cost": {"rack_mbps": 100, "cross_rack_mbps": 100}},
    "jobs": [{"name": "j1", "stages": [{"name": "s", "tasks": 1, "duration": 1, "input_mb": 1000,
               "demand": {"cpu": 1, "mem": 1}, "locality": [["S"]]}]},
             {"name": "j2", "stages": [{"name": "s", "tasks": 1, "duration": 1, "input_mb": 1000,
               "demand": {"cpu": 1, "mem": 1}, "locality": [["S"]]}]}]})");
  const Workload slow = Parse(doc.dump());
  Script script;
  Greedy greedy;
  greedy.Install(script);
  ScriptedPolicy policy(script);
  Engine engine(fast, policy, SimOptions{});
  ScheduleChecker checker(slow, 0);
  engine.AddObserver(&checker);
  ASSERT_TRUE(engine.Run().ok());
  ASSERT_GE(checker.violations().size(), 1u);
  EXPECT_EQ(checker.violations()[0],
            "S's interface out carried 2000.000 MB from 0.000000 to 20.000000 s, more than its 50 MB/s allow "
            "(1000.000)");
}

}  // namespace
}  // namespace weft::sim::scripted
