// File: tests/sim/profiled_phases_test.cc
//
// Profiled phases in sim::Engine (docs/workload-format.md "Profiled phases"):
// a task reserves its current phase's demand (its launch phase 0's); a phase
// lasts its duration alone; a growing phase waits for room; a first phase
// named "shuffle" behind a shuffle edge runs from launch and ends at the
// later of its duration and the edge's shuffle. Exact times checked by hand,
// in both execution models, and the schedule checker agrees.
#include <map>
#include <string>
#include <vector>

#include "core/random.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "metrics/critical_path.h"
#include "metrics/exact_solver.h"
#include "metrics/lower_bounds.h"
#include "nlohmann/json.hpp"
#include "scripted_policy.h"
#include "trace/dag_generators.h"

namespace weft::sim::scripted {
namespace {

// Four maps of 1..4 s and one reducer with a shuffle profile (0.5 core, 0.5
// GB) and a reduce profile (1 core, 2 GB) behind a shuffle edge with slow
// start 0.25: on one roomy machine every task starts when ready.
Workload MapShuffleReduce(double shuffle_s, const std::string& edge_extra = R"(, "slowstart": 0.25)") {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 8, "mem": 8, "net": 100}}}}]}},
    "jobs": [{{"name": "j", "stages": [
      {{"name": "map", "kind": "map", "tasks": 4, "duration": 1, "durations": [1, 2, 3, 4], "demand": {{"cpu": 1, "mem": 1}}}},
      {{"name": "reduce", "kind": "reduce", "tasks": 1,
       "phases": [{{"name": "shuffle", "duration": {}, "demand": {{"cpu": 0.5, "mem": 0.5}}}},
                  {{"name": "reduce", "duration": 2, "demand": {{"cpu": 1, "mem": 2}}}}],
       "after": [{{"stage": "map", "kind": "shuffle"{}}}]}}]}}]}})",
                           shuffle_s, edge_extra));
}

// Checked: the run ended well and the schedule checker found nothing.
::testing::AssertionResult Checked(const RunOutcome& r) {
  if (!r.status.ok()) return ::testing::AssertionFailure() << r.status;
  if (!r.checker_ok) return ::testing::AssertionFailure() << Violations(r);
  return ::testing::AssertionSuccess();
}

// OneMachine: a 4-core, 3 GB machine running one job of `stages`: a stage
// "first" of two profiled phases of 1 core and `mem0` then `mem1` GB (1 s
// then `second_s`), and a plain 2 GB stage "plain" of 1 s.
Workload OneMachine(double mem0, double mem1, double second_s) {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "capacity": {{"cpu": 4, "mem": 3}}}}]}},
    "jobs": [{{"name": "j", "stages": [
      {{"name": "first", "tasks": 1,
       "phases": [{{"duration": 1, "demand": {{"cpu": 1, "mem": {}}}}}, {{"duration": {}, "demand": {{"cpu": 1, "mem": {}}}}}]}},
      {{"name": "plain", "tasks": 1, "duration": 1, "demand": {{"cpu": 1, "mem": 2}}}}]}}]}})",
                           mem0, second_s, mem1));
}

Resources R(double cpu, double mem) {
  Resources r;
  r.set_micro(kCpu, static_cast<int64_t>(cpu * kMicroUnits));
  r.set_micro(kMem, static_cast<int64_t>(mem * kMicroUnits));
  return r;
}

TEST(ProfiledPhasesTest, ReducerHoldsItsShuffleUntilTheLastMapThenItsReduceProfile) {
  // Ready and launched at 1 s (the 1st map's end) holding the shuffle
  // profile; its 0.5 s of shuffle work is done at 1.5 s but the phase lasts
  // until the last map ends (4 s); then 2 s of reduce holding 1 core and 2 GB.
  const Workload w = MapShuffleReduce(0.5);
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunGreedy(w, model);
    ASSERT_TRUE(Checked(r));
    const AttemptRecord reduce = r.rec.Attempt(0, 1, 0);
    EXPECT_EQ(reduce.ready_us, Sec(1));
    EXPECT_EQ(reduce.start_us, Sec(1));
    EXPECT_EQ(reduce.end_us, Sec(6));
    EXPECT_EQ(reduce.demand, R(0.5, 0.5));  // reserved at launch
    ASSERT_EQ(r.rec.phases.size(), 2u);
    EXPECT_EQ(r.rec.phases[0].phase, 0u);
    EXPECT_EQ(r.rec.phases[0].start_us, Sec(1));
    EXPECT_EQ(r.rec.phases[0].end_us, Sec(4));
    EXPECT_TRUE(r.rec.phases[0].completed);
    EXPECT_EQ(r.rec.phases[1].start_us, Sec(4));
    EXPECT_EQ(r.rec.phases[1].end_us, Sec(6));
    // Held on average over 5 s: 3 s of the shuffle profile, 2 s of reduce.
    ASSERT_TRUE(reduce.held.has_value());
    EXPECT_NEAR(reduce.held->units(kMem), (3 * 0.5 + 2 * 2) / 5.0, 1e-6);
    EXPECT_NEAR(reduce.held->units(kCpu), (3 * 0.5 + 2 * 1) / 5.0, 1e-6);
  }
}

TEST(ProfiledPhasesTest, ALongShufflePhaseOutlastsTheEdgesShuffle) {
  // Shuffle work of 5 s from 1 s: it ends at 6 s, after the last map (4 s);
  // reduce from 6 s to 8 s.
  const Workload w = MapShuffleReduce(5);
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunGreedy(w, model);
    ASSERT_TRUE(Checked(r));
    ASSERT_EQ(r.rec.phases.size(), 2u);
    EXPECT_EQ(r.rec.phases[0].end_us, Sec(6));
    EXPECT_EQ(r.rec.phases[1].start_us, Sec(6));
    EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(8));
  }
}

TEST(ProfiledPhasesTest, WithoutASlowStartWaitPhasesRunBackToBack) {
  // Slow start 1: ready at 4 s; nothing left to wait for, so the shuffle
  // phase is its 0.5 s and the reduce 2 s: 4 s .. 6.5 s.
  const Workload w = MapShuffleReduce(0.5, "");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(Checked(r));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, Sec(4));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, 6'500'000);
  ASSERT_EQ(r.rec.phases.size(), 2u);
  EXPECT_EQ(r.rec.phases[0].end_us, 4'500'000);
}

TEST(ProfiledPhasesTest, AReducerGrowingIntoItsReduceProfileWaitsForRoom) {
  // One machine of 3 GB: a 1 GB map of 1 s and a 2 GB task of 2 s from 0 s.
  // The reducer launches at 1 s with its 1 GB shuffle profile (its edge has
  // nothing left to wait for: the phase is its 0.5 s), then needs 2 GB: it
  // waits, holding 1 GB, until the 2 GB task ends at 2 s, and reduces to 3 s.
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 3}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
      {"name": "reduce", "tasks": 1, "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5}],
       "phases": [{"name": "shuffle", "duration": 0.5, "demand": {"cpu": 1, "mem": 1}},
                  {"name": "reduce", "duration": 1, "demand": {"cpu": 1, "mem": 2}}]},
      {"name": "plain", "tasks": 1, "duration": 2, "demand": {"cpu": 1, "mem": 2}}]}]})");
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    Script script;
    Greedy greedy;
    greedy.pin = [](const TaskRef&) { return MachineId(0); };
    greedy.Install(script);
    SimOptions options;
    options.model = model;
    const RunOutcome r = RunEngine(w, script, options);
    ASSERT_TRUE(Checked(r));
    EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, Sec(1));
    ASSERT_EQ(r.rec.phases.size(), 2u);
    EXPECT_EQ(r.rec.phases[0].end_us, 1'500'000);
    EXPECT_EQ(r.rec.phases[1].start_us, Sec(2));
    EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(3));
  }
}

TEST(ProfiledPhasesTest, OtherTasksReserveWhatTheirPhasesLeftNeed) {
  // A task growing from 1 to 2 GB reserves 2 GB from its launch (so no
  // policy can take the room its next phase needs): on a 3 GB machine a
  // 2 GB task waits for it to end (2 s), though only 1 GB is held at first.
  const Workload w = OneMachine(1, 2, 1);
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(Checked(r));
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).demand.units(kMem), 2);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, Sec(2));
  ASSERT_TRUE(r.rec.Attempt(0, 0, 0).held.has_value());
  EXPECT_NEAR(r.rec.Attempt(0, 0, 0).held->units(kMem), 1.5, 1e-6);
}

TEST(ProfiledPhasesTest, AShrinkingPhaseFreesRoomForALaunch) {
  // A task that drops from 3 GB to 1 GB after 1 s on a 3 GB machine: a 2 GB
  // task placed first fit at 1.2 s starts then, not at the first one's end.
  const Workload w = OneMachine(3, 1, 3);
  Script script;
  Greedy greedy;
  greedy.Install(script);
  // Policies hear of no reservation change: look again at 1.2 s.
  script.on_job_arrived = [&](Context& ctx, JobId) { ctx.SetTimer(1'200'000, 1); };
  script.on_timer = [&](Context& ctx, uint64_t) { greedy.Place(ctx); };
  const RunOutcome r = RunEngine(w, script);
  ASSERT_TRUE(Checked(r));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, 1'200'000);
  EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(4));
}

// ProfiledTinyDag: the tiny DAG of `seed` with stages made of two profiled
// phases (half a second of 1 core, then the rest of the task holding its
// demand) while the exact solver's instance stays tiny, and every barrier
// edge made a shuffle edge of a random slow start, behind which the first
// phase is named "shuffle" (so it runs alongside the wait).
Workload ProfiledTinyDag(uint64_t seed) {
  nlohmann::json doc = nlohmann::json::parse(TinyDagJson(seed));
  Rng rng(seed * 104729);
  size_t units = 0;
  std::map<std::string, bool> named_parent;
  for (const auto& stage : doc["jobs"][0]["stages"]) {
    units += stage["tasks"].get<size_t>();
    if (!stage.contains("after")) continue;
    for (const auto& edge : stage["after"]) named_parent[edge.is_string() ? edge.get<std::string>() : edge["stage"].get<std::string>()] = true;
  }
  std::vector<bool> has_child;
  for (const auto& stage : doc["jobs"][0]["stages"]) has_child.push_back(named_parent.count(stage["name"].get<std::string>()) > 0);
  size_t index = 0;
  for (auto& stage : doc["jobs"][0]["stages"]) {
    ++index;
    bool shuffle = false;
    if (stage.contains("after")) {
      for (auto& edge : stage["after"]) {
        if (!edge.is_string()) continue;
        edge = {{"stage", edge}, {"kind", "shuffle"},
                {"slowstart", 0.1 + 0.9 * static_cast<double>(rng.UniformInt(10)) / 9.0}};
        shuffle = true;
      }
    }
    const size_t tasks = stage["tasks"].get<size_t>();
    if (stage.contains("durations") || units + tasks > 10) continue;
    units += tasks;
    const double d = stage["duration"].get<double>();
    nlohmann::json first = {{"duration", 0.5}, {"demand", {{"cpu", 1}}}};
    // Only sinks (as MapReduce's reducers): a child launched at slow start
    // behind a reducer that must grow can hold the room it needs, a
    // slow-start deadlock that Greedy does not avoid.
    if (shuffle && !has_child[index - 1]) first["name"] = "shuffle";
    stage["phases"] = nlohmann::json::array({first, {{"duration", d - 0.5}, {"demand", stage["demand"]}}});
    stage.erase("duration");
    stage.erase("demand");
  }
  return Parse(doc.dump());
}

TEST(ProfiledPhasesTest, BoundsStayBelowTheOptimumAndEverySimulatedRunOnRandomTinyDags) {
  // The exact solver's chain of phases is a relaxation: its optimum is at
  // most any valid run's, and every bound is at most it.
  int profiled = 0;
  int solved = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Workload w = ProfiledTinyDag(seed);
    ASSERT_EQ(w.jobs.size(), 1u);
    for (const Stage& st : w.jobs[0].stages) profiled += st.HasProfiledPhases() ? 1 : 0;
    const JobBounds b = ComputeJobBounds(w.jobs[0], BoundCapacity::Of(w.cluster));
    auto problem = ExactProblemOf(w.jobs[0], w.cluster);
    ASSERT_TRUE(problem.ok()) << StatusMessage(problem.status());
    // A few instances need too long a search: their bounds still face the runs.
    auto opt = SolveExact(*problem, 300'000);
    ASSERT_TRUE(opt.ok() || opt.status().code() == absl::StatusCode::kResourceExhausted)
        << StatusMessage(opt.status());
    const TimeUs best = opt.ok() ? opt->makespan_us : kTimeInfinite;
    solved += opt.ok() ? 1 : 0;
    EXPECT_LE(b.newlb_us, best);
    EXPECT_LE(b.modcp_us, best);
    EXPECT_LE(b.twork_us, best);
    EXPECT_LE(CriticalPathUs(w.jobs[0], w.cluster), best);
    for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
      const RunOutcome r = RunGreedy(w, model);
      ASSERT_TRUE(Checked(r));
      const TimeUs jct = r.rec.Job(0).end_us - w.jobs[0].arrival_us;
      EXPECT_LE(best == kTimeInfinite ? b.newlb_us : best, jct);
    }
  }
  EXPECT_GT(profiled, 60);  // the transform profiled most stages
  EXPECT_GE(solved, 45);    // and most instances were solved exactly
}

TEST(ProfiledPhasesTest, ExactSolverChainsThePhases) {
  // The reducer's shuffle phase needs no parent; its reduce phase needs every
  // map and the shuffle phase: 4 maps (1..4 s on 8 cores) then 2 s = 6 s.
  const Workload w = MapShuffleReduce(0.5);
  auto problem = ExactProblemOf(w.jobs[0], w.cluster);
  ASSERT_TRUE(problem.ok()) << StatusMessage(problem.status());
  ASSERT_EQ(problem->tasks.size(), 6u);
  EXPECT_TRUE(problem->tasks[4].parents.empty());
  EXPECT_EQ(problem->tasks[5].parents.size(), 5u);
  auto opt = SolveExact(*problem);
  ASSERT_TRUE(opt.ok()) << StatusMessage(opt.status());
  EXPECT_EQ(opt->makespan_us, Sec(6));
}

}  // namespace
}  // namespace weft::sim::scripted
