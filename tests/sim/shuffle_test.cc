// File: tests/sim/shuffle_test.cc
//
// Shuffle edges with slow start in sim::Engine (docs/workload-format.md,
// "after"): a reducer is ready, and may launch, once the slow-start fraction
// of the maps is done (tasks.csv `ready` is that instant); it then shuffles,
// copying each map's shuffle_mb from the map's machine as a network flow as
// the maps end (docs/model.md, "Flows"), and starts its own work only after
// the last map ended and the last flow is done. Exact times checked by hand,
// in both execution models, and the schedule checker agrees; flows that share
// an interface, and a map output on the reducer's own machine.
#include <string>

#include "core/random.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "metrics/exact_solver.h"
#include "metrics/lower_bounds.h"
#include "nlohmann/json.hpp"
#include "scripted_policy.h"
#include "trace/dag_generators.h"

namespace weft::sim::scripted {
namespace {

// Two machines with room for everything and 100 MB/s of network: the maps
// (no memory) run first fit on "maps", the reducer (1 GB) on "m", which alone
// has memory; tasks start as soon as they are ready and a lone flow from
// "maps" to "m" carries 1 MB in 10 ms.
Workload MapReduce(const std::string& edge, const std::string& reduce_extra = R"("duration": 2)") {
  return Parse(fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "maps", "capacity": {{"cpu": 16, "net": 100}}}},
                            {{"name": "m", "capacity": {{"cpu": 16, "mem": 16, "net": 100}}}}]}},
    "jobs": [{{"name": "j", "stages": [
      {{"name": "map", "kind": "map", "tasks": 4, "duration": 1, "durations": [1, 2, 3, 4], "demand": {{"cpu": 1}}}},
      {{"name": "reduce", "kind": "reduce", "tasks": 1, {}, "demand": {{"cpu": 1, "mem": 1}},
       "after": [{}]}}]}}]}})",
                           reduce_extra, edge));
}

TEST(ShuffleTest, ReducerLaunchesAtSlowStartAndCopiesAsMapsEnd) {
  // slowstart 0.5 of 4 maps: ready when the 2nd map ends, at 2 s. It starts at
  // once and copies the 2 maps' 50 MB each (1 s: until 3 s); map 3 ends at 3 s
  // (copy until 3.5 s), map 4 at 4 s (copy until 4.5 s). Then 2 s of reduce.
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.5, "shuffle_mb": 50})");
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunGreedy(w, model);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    const AttemptRecord reduce = r.rec.Attempt(0, 1, 0);
    EXPECT_EQ(reduce.ready_us, Sec(2));
    EXPECT_EQ(reduce.start_us, Sec(2));
    EXPECT_EQ(reduce.end_us, 6'500'000);
    EXPECT_EQ(r.rec.Job(0).end_us, 6'500'000);
  }
}

TEST(ShuffleTest, WithoutShuffleMbTheShuffleIsTheWaitForTheLastMap) {
  // slowstart 0.25 of 4: ready at the 1st map's end (1 s); own work from the
  // last map's end (4 s) to 6 s.
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.25})");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  const AttemptRecord reduce = r.rec.Attempt(0, 1, 0);
  EXPECT_EQ(reduce.ready_us, Sec(1));
  EXPECT_EQ(reduce.start_us, Sec(1));
  EXPECT_EQ(reduce.end_us, Sec(6));
}

TEST(ShuffleTest, SlowStartRoundsUpToWholeTasks) {
  // 0.3 of 4 maps is 1.2: the 2nd map's end (2 s).
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.3})");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).ready_us, Sec(2));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(6));
}

TEST(ShuffleTest, FullSlowStartCopiesEverythingAfterTheLastMap) {
  // slowstart 1: ready at 4 s like a barrier, then 4 x 50 MB = 2 s of copy.
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "shuffle_mb": 50})");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).ready_us, Sec(4));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(8));
}

TEST(ShuffleTest, PlainShuffleEdgeRunsExactlyAsABarrier) {
  const Workload shuffle = MapReduce(R"({"stage": "map", "kind": "shuffle"})");
  const Workload barrier = MapReduce(R"("map")");
  const RunOutcome a = RunGreedy(shuffle);
  const RunOutcome b = RunGreedy(barrier);
  ASSERT_EQ(a.rec.attempts.size(), b.rec.attempts.size());
  for (size_t i = 0; i < a.rec.attempts.size(); ++i) {
    EXPECT_EQ(a.rec.attempts[i].ready_us, b.rec.attempts[i].ready_us);
    EXPECT_EQ(a.rec.attempts[i].start_us, b.rec.attempts[i].start_us);
    EXPECT_EQ(a.rec.attempts[i].end_us, b.rec.attempts[i].end_us);
  }
}

TEST(ShuffleTest, PhasesRunAfterTheShuffle) {
  // A reducer made of a 1 core-second cpu phase: shuffle from 1 s to 4 s,
  // then its phase from 4 s to 5 s (phases.csv shows it).
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.25})",
                               R"("phases": [{"resource": "cpu", "work": 1}])");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).start_us, Sec(1));
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(5));
  ASSERT_EQ(r.rec.phases.size(), 1u);
  EXPECT_EQ(r.rec.phases[0].start_us, Sec(4));
}

TEST(ShuffleTest, ReducerRetriedAfterAKillShufflesAgain) {
  // The reducer is killed at 2.5 s while it shuffles; its retry is ready at
  // once, starts at 2.5 s and still ends 2 s after the last map.
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.25})");
  Script script;
  Greedy greedy;
  greedy.Install(script);
  bool killed = false;
  script.on_job_arrived = [&](Context& ctx, JobId) { ctx.SetTimer(2'500'000, 7); };
  script.on_timer = [&](Context& ctx, uint64_t tag) {
    if (tag == 7 && !killed) killed = ctx.Kill(TaskRef{JobId(0), 1, 0}).ok();
  };
  const RunOutcome r = RunEngine(w, script);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(killed);
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0, 0).end_us, 2'500'000);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0, 1).start_us, 2'500'000);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0, 1).end_us, Sec(6));
}

// ShuffleTinyDag: the tiny DAG of `seed` with every barrier edge made a
// shuffle edge of a random slow start (and, with `mb`, a random shuffle size
// over 100 MB/s machines).
Workload ShuffleTinyDag(uint64_t seed, bool mb) {
  nlohmann::json doc = nlohmann::json::parse(TinyDagJson(seed));
  Rng rng(seed * 7919);
  for (auto& group : doc["cluster"]["machines"]) group["capacity"]["net"] = 100;
  for (auto& stage : doc["jobs"][0]["stages"]) {
    if (!stage.contains("after")) continue;
    for (auto& edge : stage["after"]) {
      if (!edge.is_string()) continue;
      nlohmann::json shuffle = {{"stage", edge}, {"kind", "shuffle"},
                                {"slowstart", 0.1 + 0.9 * static_cast<double>(rng.UniformInt(10)) / 9.0}};
      if (mb) shuffle["shuffle_mb"] = static_cast<double>(rng.UniformInt(200));
      edge = shuffle;
    }
  }
  return Parse(doc.dump());
}

TEST(ShuffleTest, BoundsStayBelowTheOptimumAndEverySimulatedRunOnRandomTinyDags) {
  // Without shuffle sizes the exact solver's optimum is the true optimum (a
  // reducer launched early only holds its demand sooner): every bound is at
  // most it, and it is at most any valid run's. With sizes, bounds stay
  // below the runs.
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (bool mb : {false, true}) {
      const Workload w = ShuffleTinyDag(seed, mb);
      ASSERT_EQ(w.jobs.size(), 1u);
      const JobBounds b = ComputeJobBounds(w.jobs[0], BoundCapacity::Of(w.cluster));
      for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
        const RunOutcome r = RunGreedy(w, model);
        ASSERT_TRUE(r.status.ok()) << r.status;
        EXPECT_TRUE(r.checker_ok) << Violations(r);
        const TimeUs jct = r.rec.Job(0).end_us - w.jobs[0].arrival_us;
        EXPECT_LE(b.newlb_us, jct);
        EXPECT_LE(b.cplen_us, jct);
        if (mb) continue;
        auto problem = ExactProblemOf(w.jobs[0], w.cluster);
        ASSERT_TRUE(problem.ok()) << StatusMessage(problem.status());
        auto opt = SolveExact(*problem);
        ASSERT_TRUE(opt.ok()) << StatusMessage(opt.status());
        EXPECT_LE(b.newlb_us, opt->makespan_us);
        EXPECT_LE(b.modcp_us, opt->makespan_us);
        EXPECT_LE(b.twork_us, opt->makespan_us);
        EXPECT_LE(opt->makespan_us, jct);
      }
    }
  }
}

// Flows share interfaces: two reducers on "m" copy 4 x 50 MB each from
// "maps" after the last map (4 s, slowstart 1): 400 MB through 100 MB/s, so
// both shuffles end at 8 s and the reducers at 10 s. (Copies that did not
// share ended at 6 s.)
TEST(ShuffleTest, TwoReducersOnOneMachineShareItsInterface) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "maps", "capacity": {"cpu": 16, "net": 100}},
                             {"name": "m", "capacity": {"cpu": 16, "mem": 16, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "tasks": 4, "duration": 1, "durations": [1, 2, 3, 4], "demand": {"cpu": 1}},
      {"name": "reduce", "tasks": 2, "duration": 2, "demand": {"cpu": 1, "mem": 1},
       "after": [{"stage": "map", "kind": "shuffle", "shuffle_mb": 50}]}]}]})");
  for (ExecutionModel model : {ExecutionModel::kFixed, ExecutionModel::kContention}) {
    const RunOutcome r = RunGreedy(w, model);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_TRUE(r.checker_ok) << Violations(r);
    EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(10));
    EXPECT_EQ(r.rec.Attempt(0, 1, 1).end_us, Sec(10));
  }
}

// A map output on the reducer's own machine is not copied over the network:
// with one machine for all, the reducer's work starts at the last map's end.
TEST(ShuffleTest, AnOutputOnTheReducersMachineIsNotCopied) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 16, "mem": 16, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "tasks": 4, "duration": 1, "durations": [1, 2, 3, 4], "demand": {"cpu": 1}},
      {"name": "reduce", "tasks": 1, "duration": 2, "demand": {"cpu": 1, "mem": 1},
       "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5, "shuffle_mb": 50}]}]}]})");
  const RunOutcome r = RunGreedy(w);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.checker_ok) << Violations(r);
  EXPECT_EQ(r.rec.Attempt(0, 1, 0).end_us, Sec(6));
}

TEST(ShuffleTest, ExactSolverRefusesShuffleCopies) {
  const Workload w = MapReduce(R"({"stage": "map", "kind": "shuffle", "shuffle_mb": 50})");
  EXPECT_EQ(StatusMessage(ExactProblemOf(w.jobs[0], w.cluster).status()),
            "the exact solver does not model shuffle copies (shuffle_mb)");
}

}  // namespace
}  // namespace weft::sim::scripted
