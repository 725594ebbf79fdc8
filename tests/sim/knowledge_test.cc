// File: tests/sim/knowledge_test.cc
//
// Knowledge levels as the engine's JobView enforces them: a non-clairvoyant
// policy never sees durations (and assumes usage = demand); a
// semi-clairvoyant one sees demands, usage, phases and durations of stages
// that have been released (COBRA), nothing of the others; a clairvoyant one
// sees them all, perturbed
// deterministically by estimate_noise. EstimatedDuration falls back to what
// finished tasks taught: the stage's mean, else the job's, else the default.
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

using policy::JobView;
using policy::Knowledge;

// a: 2 tasks of 2 s and 4 s (demand cpu 1 mem 2, usage cpu 0.5 mem 1) ->
// b: 1 task of 3 s (demand cpu 2). Plenty of room: a0 ends at 2, a1 at 4.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 8, "mem": 8}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 1, "durations": [2, 4], "demand": {"cpu": 1, "mem": 2},
     "usage": {"cpu": 0.5, "mem": 1}},
    {"name": "b", "tasks": 1, "duration": 3, "demand": {"cpu": 2}, "after": ["a"]}]}]})";

const TaskRef kA0{JobId(0), 0, 0}, kA1{JobId(0), 0, 1}, kB0{JobId(0), 1, 0};

// What a policy saw of one task at one moment.
struct Seen {
  std::optional<TimeUs> duration;
  TimeUs estimate = 0;
  Resources usage;
  size_t phases = 0;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen Look(const JobView& job, const TaskRef& t) {
  return Seen{job.Duration(t), job.EstimatedDuration(t), job.ExpectedUsage(t), job.Phases(t.stage).size()};
}

// Runs the workload under `knowledge` and records, when stage a is announced
// and at each task end, what the policy sees of a0, a1 and b0.
struct Observations {
  std::vector<Seen> at_start;  // a0, a1, b0
  std::vector<Seen> after_a0;  // a1, b0 after a0 ended (t = 2)
  std::vector<Seen> after_a1;  // b0 after a1 ended (t = 4)
  RunOutcome run;
};

Observations Observe(Knowledge knowledge, SimOptions options = {}) {
  const Workload w = Parse(kWorkload);
  Observations obs;
  Script s;
  s.knowledge = knowledge;
  Greedy greedy;
  greedy.Install(s);
  s.on_ready = [&](Context& ctx, const TaskRange& r) {
    if (r.stage == 0) {
      const JobView job = ctx.job(r.job);
      obs.at_start = {Look(job, kA0), Look(job, kA1), Look(job, kB0)};
    }
    greedy.Add(r);
    greedy.Place(ctx);
  };
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    const JobView job = ctx.job(e.task.job);
    if (e.task == kA0) obs.after_a0 = {Look(job, kA1), Look(job, kB0)};
    if (e.task == kA1) obs.after_a1 = {Look(job, kB0)};
  };
  obs.run = RunEngine(w, s, std::move(options));
  EXPECT_TRUE(obs.run.status.ok()) << obs.run.status;
  return obs;
}

Resources Units(double cpu, double mem) { return Resources::FromUnits({cpu, mem, 0, 0}).value(); }

SimOptions DefaultDuration(TimeUs d) {
  SimOptions o;
  o.knowledge.default_duration_us = d;
  return o;
}

TEST(KnowledgeTest, NonClairvoyantNeverSeesDurationsAndLearnsFromFinishedTasks) {
  const Observations o = Observe(Knowledge::kNonClairvoyant, DefaultDuration(Sec(7)));
  const Resources a_demand = Units(1, 2), b_demand = Units(2, 0);
  ASSERT_EQ(o.at_start.size(), 3u);
  EXPECT_EQ(o.at_start[0], (Seen{std::nullopt, Sec(7), a_demand, 0}));
  EXPECT_EQ(o.at_start[1], (Seen{std::nullopt, Sec(7), a_demand, 0}));
  EXPECT_EQ(o.at_start[2], (Seen{std::nullopt, Sec(7), b_demand, 0}));
  // After a0 (2 s): stage a's mean is 2 s; b has learned nothing, so the
  // job's mean applies.
  ASSERT_EQ(o.after_a0.size(), 2u);
  EXPECT_EQ(o.after_a0[0].estimate, Sec(2));
  EXPECT_EQ(o.after_a0[1].estimate, Sec(2));
  EXPECT_EQ(o.after_a0[1].duration, std::nullopt);
  // After a1 (4 s): the mean of 2 and 4.
  ASSERT_EQ(o.after_a1.size(), 1u);
  EXPECT_EQ(o.after_a1[0].estimate, Sec(3));
}

TEST(KnowledgeTest, SemiClairvoyantSeesOnlyReleasedStages) {
  const Observations o = Observe(Knowledge::kSemiClairvoyant, DefaultDuration(Sec(7)));
  ASSERT_EQ(o.at_start.size(), 3u);
  EXPECT_EQ(o.at_start[0], (Seen{Sec(2), Sec(2), Units(0.5, 1), 0}));
  EXPECT_EQ(o.at_start[1], (Seen{Sec(4), Sec(4), Units(0.5, 1), 0}));
  // b is not released: nothing of it is known, not even its demand.
  EXPECT_EQ(o.at_start[2], (Seen{std::nullopt, Sec(7), Resources(), 0}));
  ASSERT_EQ(o.after_a0.size(), 2u);
  EXPECT_EQ(o.after_a0[1].duration, std::nullopt);
  EXPECT_EQ(o.after_a0[1].estimate, Sec(2));  // learned
  // Once a is done, b is ready and known.
  ASSERT_EQ(o.after_a1.size(), 1u);
  EXPECT_EQ(o.after_a1[0].duration, Sec(3));
}

TEST(KnowledgeTest, ClairvoyantSeesEveryTaskExactly) {
  const Observations o = Observe(Knowledge::kClairvoyant);
  ASSERT_EQ(o.at_start.size(), 3u);
  EXPECT_EQ(o.at_start[0].duration, Sec(2));
  EXPECT_EQ(o.at_start[1].duration, Sec(4));
  EXPECT_EQ(o.at_start[2], (Seen{Sec(3), Sec(3), Units(2, 0), 0}));
}

TEST(KnowledgeTest, EstimateNoisePerturbsClairvoyantDurationsDeterministically) {
  SimOptions noisy;
  noisy.knowledge.estimate_noise = 0.5;
  noisy.seed = 11;
  const Observations first = Observe(Knowledge::kClairvoyant, noisy);
  const Observations again = Observe(Knowledge::kClairvoyant, noisy);
  noisy.seed = 12;
  const Observations other_seed = Observe(Knowledge::kClairvoyant, noisy);
  ASSERT_EQ(first.at_start.size(), 3u);
  ASSERT_TRUE(first.at_start[0].duration.has_value());
  EXPECT_NE(*first.at_start[0].duration, Sec(2));
  EXPECT_GT(*first.at_start[0].duration, 0);
  EXPECT_EQ(first.at_start[0].estimate, *first.at_start[0].duration);
  // The same question gets the same answer, within a run and across runs.
  EXPECT_EQ(first.after_a0[1].duration, first.at_start[2].duration);
  EXPECT_EQ(first.at_start, again.at_start);
  EXPECT_NE(first.at_start[0].duration, other_seed.at_start[0].duration);
  // Only what the policy sees is perturbed: the task still runs 2 s.
  EXPECT_EQ(first.run.rec.Attempt(0, 0, 0).end_us, Sec(2));
}

TEST(KnowledgeTest, NoiseDoesNotReachNonClairvoyantPolicies) {
  SimOptions noisy = DefaultDuration(Sec(7));
  noisy.knowledge.estimate_noise = 0.5;
  const Observations o = Observe(Knowledge::kNonClairvoyant, noisy);
  EXPECT_EQ(o.at_start[0].duration, std::nullopt);
  EXPECT_EQ(o.after_a1[0].estimate, Sec(3));
}

TEST(KnowledgeTest, PhasesAreHiddenFromNonClairvoyantPolicies) {
  const Workload w = Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 2, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 1, "demand": {"cpu": 1},
      "phases": [{"resource": "cpu", "work": 1}, {"resource": "net", "work": 50}]}]}]})");
  for (Knowledge k : {Knowledge::kNonClairvoyant, Knowledge::kSemiClairvoyant, Knowledge::kClairvoyant}) {
    Script s;
    s.knowledge = k;
    size_t phases = 99;
    s.on_ready = [&](Context& ctx, const TaskRange& r) {
      phases = ctx.job(r.job).Phases(0).size();
      ASSERT_TRUE(ctx.Launch(TaskRef{r.job, 0, 0}, MachineId(0)).ok());
    };
    const RunOutcome r = RunEngine(w, s);
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(phases, k == Knowledge::kNonClairvoyant ? 0u : 2u) << policy::KnowledgeName(k);
    EXPECT_EQ(r.rec.Attempt(0, 0, 0).end_us, Sec(1.5));
  }
}

// a (2 tasks: 1 s, 3 s) -pipelined-> b (2 tasks, phases) -barrier-> c.
// b is released at t = 1 when a0 ends (b0 ready; b1 still waits for a1).
constexpr char kChain[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 8, "mem": 8, "disk": 100}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 1, "durations": [1, 3], "demand": {"cpu": 1}},
    {"name": "b", "tasks": 2, "demand": {"cpu": 2, "mem": 1}, "usage": {"cpu": 1, "mem": 1},
     "phases": [{"resource": "cpu", "work": 2}, {"resource": "disk", "work": 100}],
     "after": [{"stage": "a", "kind": "pipelined"}]},
    {"name": "c", "tasks": 1, "duration": 5, "demand": {"mem": 3}, "after": ["b"]}]}]})";

// What a policy saw of a whole stage at one moment.
struct StageSeen {
  bool known = false;
  Resources demand;
  bool has_phases = false;
  size_t phases = 0;
  std::optional<TimeUs> duration;  // of the stage's last task
  Resources usage;                 // expected, of the stage's last task
  friend bool operator==(const StageSeen&, const StageSeen&) = default;
};

StageSeen LookAtStage(const JobView& job, uint32_t s) {
  const TaskRef last{job.id(), s, job.stage_tasks(s) - 1};
  return StageSeen{job.stage_known(s),         job.demand(s),      job.has_phases(s), job.Phases(s).size(),
                   job.Duration(last),         job.ExpectedUsage(last)};
}

// Runs kChain under `knowledge`, recording what the policy sees of stages b
// and c when a is announced (t = 0) and when a0 ends (t = 1, b released).
struct ChainSeen {
  std::vector<StageSeen> at_start, after_a0;
};

ChainSeen ObserveChain(Knowledge knowledge) {
  const Workload w = Parse(kChain);
  ChainSeen seen;
  Script s;
  s.knowledge = knowledge;
  Greedy greedy;
  greedy.Install(s);
  s.on_ready = [&](Context& ctx, const TaskRange& r) {
    if (r.stage == 0) seen.at_start = {LookAtStage(ctx.job(r.job), 1), LookAtStage(ctx.job(r.job), 2)};
    greedy.Add(r);
    greedy.Place(ctx);
  };
  s.on_ended = [&](Context& ctx, const TaskEnd& e) {
    if (e.task == kA0) seen.after_a0 = {LookAtStage(ctx.job(e.task.job), 1), LookAtStage(ctx.job(e.task.job), 2)};
    greedy.Place(ctx);
  };
  const RunOutcome run = RunEngine(w, s);
  EXPECT_TRUE(run.status.ok()) << run.status;
  EXPECT_TRUE(run.checker_ok) << Violations(run);
  return seen;
}

TEST(KnowledgeTest, SemiClairvoyantSeesNothingOfABlockedStageAndAllOfAReleasedOne) {
  const ChainSeen o = ObserveChain(Knowledge::kSemiClairvoyant);
  const StageSeen hidden{false, Resources(), false, 0, std::nullopt, Resources()};
  ASSERT_EQ(o.at_start.size(), 2u);
  EXPECT_EQ(o.at_start[0], hidden);  // b
  EXPECT_EQ(o.at_start[1], hidden);  // c
  // At t = 1 b is released by b0 alone; b1 still waits for a1, yet the stage
  // is known whole: its demand, usage, phases, and b1's duration (2 s of cpu
  // then 100 MB of disk at 100 MB/s).
  ASSERT_EQ(o.after_a0.size(), 2u);
  EXPECT_EQ(o.after_a0[0], (StageSeen{true, Units(2, 1), true, 2, Sec(3), Units(1, 1)}));
  EXPECT_EQ(o.after_a0[1], hidden);  // c waits for all of b
}

TEST(KnowledgeTest, OtherLevelsSeeBlockedStagesAsBefore) {
  // Clairvoyant: everything from the start. Non-clairvoyant: demands and
  // structure (has_phases), never durations, phases or usage below demand.
  const ChainSeen clair = ObserveChain(Knowledge::kClairvoyant);
  ASSERT_EQ(clair.at_start.size(), 2u);
  EXPECT_EQ(clair.at_start[0], (StageSeen{true, Units(2, 1), true, 2, Sec(3), Units(1, 1)}));
  EXPECT_EQ(clair.at_start[1], (StageSeen{true, Units(0, 3), false, 0, Sec(5), Units(0, 3)}));
  const ChainSeen non = ObserveChain(Knowledge::kNonClairvoyant);
  ASSERT_EQ(non.at_start.size(), 2u);
  EXPECT_EQ(non.at_start[0], (StageSeen{true, Units(2, 1), true, 0, std::nullopt, Units(2, 1)}));
  EXPECT_EQ(non.at_start[1], (StageSeen{true, Units(0, 3), false, 0, std::nullopt, Units(0, 3)}));
}

}  // namespace
}  // namespace weft::sim::scripted
