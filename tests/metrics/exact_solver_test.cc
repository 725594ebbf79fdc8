// File: tests/metrics/exact_solver_test.cc
//
// The exact solver on hand-checked instances (one vs two machines, the
// Lemma 1 DAG whose optimum the paper derives), its schedules re-checked
// independently (precedence, capacity at every instant, every task once),
// an independent brute force over every start time agreeing with it on 150
// random instances, and the property the lower bounds must have: on hundreds of random tiny
// DAGs, CPLen, TWork, ModCP and NewLB never exceed the optimum and NewLB >=
// max(CPLen, TWork). Prints how often each bound is tight.
#include "metrics/exact_solver.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include "core/random.h"
#include "core/status.h"
#include "gtest/gtest.h"
#include "metrics/lower_bounds.h"
#include "trace/dag_generators.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + 0.5); }

// CheckSchedule re-derives validity from the schedule alone.
void CheckSchedule(const ExactProblem& p, const ExactSchedule& s) {
  ASSERT_EQ(s.start_us.size(), p.tasks.size());
  TimeUs last = 0;
  for (size_t i = 0; i < p.tasks.size(); ++i) {
    const TimeUs end = s.start_us[i] + p.tasks[i].duration_us;
    last = std::max(last, end);
    ASSERT_GE(s.start_us[i], 0);
    ASSERT_LT(s.machine[i], p.machines.size());
    for (uint32_t q : p.tasks[i].parents) {
      EXPECT_GE(s.start_us[i], s.start_us[q] + p.tasks[q].duration_us) << "task " << i << " before parent " << q;
    }
    // Capacity at this task's start on its machine (usage only rises at starts).
    Resources used;
    for (size_t j = 0; j < p.tasks.size(); ++j) {
      if (s.machine[j] == s.machine[i] && s.start_us[j] <= s.start_us[i] &&
          s.start_us[i] < s.start_us[j] + p.tasks[j].duration_us) {
        used += p.tasks[j].demand;
      }
    }
    EXPECT_TRUE(used.FitsIn(p.machines[s.machine[i]])) << "machine " << s.machine[i] << " over capacity";
  }
  EXPECT_EQ(last, s.makespan_us);
}

ExactSchedule Solve(const Workload& w) {
  auto problem = ExactProblemOf(w.jobs[0], w.cluster);
  EXPECT_TRUE(problem.ok()) << StatusMessage(problem.status());
  if (!problem.ok()) return {};
  auto s = SolveExact(*problem);
  EXPECT_TRUE(s.ok()) << StatusMessage(s.status());
  if (!s.ok()) return {};
  CheckSchedule(*problem, *s);
  return *s;
}

TEST(ExactSolverTest, TwoWideTasksShareTwoMachinesButNotOne) {
  const std::string stages = R"("jobs": [{"name": "j", "stages": [
      {"name": "a", "tasks": 2, "duration": 3, "demand": {"cpu": 2}},
      {"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]}]}]})";
  auto one = ParseWorkload(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2}}]}, )" + stages);
  auto two = ParseWorkload(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 2}}]}, )" + stages);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(Solve(*one).makespan_us, Sec(7));
  EXPECT_EQ(Solve(*two).makespan_us, Sec(4));
}

TEST(ExactSolverTest, OptimumMayStartTheShortWideTaskFirst) {
  // One machine of 2 cpu: x (1 cpu, 2 s) and y (2 cpu, 1 s) are roots, z (1
  // cpu, 2 s) follows y. Starting x first gives 5; OPT runs y, then x and z
  // together: 3.
  auto w = ParseWorkload(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "x", "tasks": 1, "duration": 2, "demand": {"cpu": 1}},
      {"name": "y", "tasks": 1, "duration": 1, "demand": {"cpu": 2}},
      {"name": "z", "tasks": 1, "duration": 2, "demand": {"cpu": 1}, "after": ["y"]}]}]})");
  ASSERT_TRUE(w.ok());
  const ExactSchedule s = Solve(*w);
  EXPECT_EQ(s.makespan_us, Sec(3));
  // Tasks are numbered in topological stage order, one task per stage here.
  const auto& topo = w->jobs[0].topo_order;
  const size_t y = static_cast<size_t>(std::find(topo.begin(), topo.end(), 1u) - topo.begin());
  EXPECT_EQ(s.start_us[y], 0);
}

TEST(ExactSolverTest, Lemma1DagOptimumIsKPlusDMinusOneSteps) {
  // DAGPS appendix A: OPT = (k + d - 1) t; d = 3 resources, k = 2 tasks per group.
  auto w = Fig17Workload(3, 2, 1.0);
  ASSERT_TRUE(w.ok()) << StatusMessage(w.status());
  EXPECT_EQ(Solve(*w).makespan_us, Sec(4));
  const JobBounds b = ComputeJobBounds(w->jobs[0], BoundCapacity::Of(w->cluster));
  EXPECT_EQ(b.newlb_us, Sec(4));  // ModCP: the red chain, then a whole group's work
  EXPECT_EQ(b.cplen_us, Sec(3));
  EXPECT_EQ(b.twork_us, Sec(2));
}

TEST(ExactSolverTest, RefusesInstancesThatAreNotTiny) {
  ExactProblem p;
  p.machines.push_back(Resources());
  for (size_t i = 0; i <= kMaxExactTasks; ++i) p.tasks.push_back(ExactTask{1, Resources(), {}});
  EXPECT_EQ(SolveExact(p).status().code(), absl::StatusCode::kInvalidArgument);
  ExactProblem cycle;
  cycle.machines.push_back(Resources());
  cycle.tasks.push_back(ExactTask{1, Resources(), {0}});
  EXPECT_EQ(SolveExact(cycle).status().code(), absl::StatusCode::kInvalidArgument);
}

// BruteForce: the optimum by trying every integer start time below the sum of
// durations and every machine for every task (no semi-active argument, no
// pruning beyond feasibility), for instances with integer durations.
TimeUs BruteForce(const ExactProblem& p) {
  TimeUs horizon = 0;
  for (const ExactTask& t : p.tasks) horizon += t.duration_us;
  std::vector<TimeUs> start(p.tasks.size());
  std::vector<uint32_t> machine(p.tasks.size());
  TimeUs best = kTimeInfinite;
  std::function<void(size_t, TimeUs)> place = [&](size_t i, TimeUs makespan) {
    if (makespan >= best) return;
    if (i == p.tasks.size()) {
      best = makespan;
      return;
    }
    const ExactTask& t = p.tasks[i];
    TimeUs earliest = 0;
    for (uint32_t q : t.parents) earliest = std::max(earliest, start[q] + p.tasks[q].duration_us);
    for (TimeUs s = earliest; s < horizon; ++s) {
      for (uint32_t m = 0; m < p.machines.size(); ++m) {
        bool fits = true;
        for (TimeUs x = s; x < s + t.duration_us && fits; ++x) {
          Resources used = t.demand;
          for (size_t j = 0; j < i; ++j) {
            if (machine[j] == m && start[j] <= x && x < start[j] + p.tasks[j].duration_us) used += p.tasks[j].demand;
          }
          fits = used.FitsIn(p.machines[m]);
        }
        if (!fits) continue;
        start[i] = s;
        machine[i] = m;
        place(i + 1, std::max(makespan, s + t.duration_us));
      }
    }
  };
  place(0, 0);
  return best;
}

TEST(ExactSolverTest, AgreesWithBruteForceOnRandomInstances) {
  Rng rng(11);
  for (int instance = 0; instance < 150; ++instance) {
    ExactProblem p;
    const uint32_t machines = 1 + static_cast<uint32_t>(rng.UniformInt(2));
    for (uint32_t m = 0; m < machines; ++m) {
      auto cap = Resources::FromUnits({2.0 + static_cast<double>(rng.UniformInt(2)), 2, 0, 0});
      p.machines.push_back(*cap);
    }
    const uint32_t n = 2 + static_cast<uint32_t>(rng.UniformInt(3));
    for (uint32_t i = 0; i < n; ++i) {
      ExactTask t;
      t.duration_us = 1 + static_cast<TimeUs>(rng.UniformInt(3));
      t.demand = *Resources::FromUnits({1.0 + static_cast<double>(rng.UniformInt(2)),
                                        static_cast<double>(rng.UniformInt(3)), 0, 0});
      for (uint32_t q = 0; q < i; ++q) {
        if (rng.Bernoulli(0.35)) t.parents.push_back(q);
      }
      p.tasks.push_back(std::move(t));
    }
    auto s = SolveExact(p);
    ASSERT_TRUE(s.ok()) << StatusMessage(s.status());
    CheckSchedule(p, *s);
    EXPECT_EQ(s->makespan_us, BruteForce(p)) << "instance " << instance;
  }
}

TEST(ExactSolverTest, BoundsNeverExceedTheOptimumOnRandomTinyDags) {
  constexpr uint64_t kDags = 400;
  int newlb_tight = 0, old_tight = 0, newlb_better = 0;
  double newlb_gap = 0;
  for (uint64_t seed = 1; seed <= kDags; ++seed) {
    auto w = TinyDagWorkload(seed);
    ASSERT_TRUE(w.ok()) << "seed " << seed << ": " << StatusMessage(w.status());
    const ExactSchedule opt = Solve(*w);
    const JobBounds b = ComputeJobBounds(w->jobs[0], BoundCapacity::Of(w->cluster));
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + TinyDagJson(seed));
    EXPECT_LE(b.cplen_us, opt.makespan_us);
    EXPECT_LE(b.twork_us, opt.makespan_us);
    EXPECT_LE(b.modcp_us, opt.makespan_us);
    EXPECT_LE(b.newlb_us, opt.makespan_us);
    const TimeUs old_lb = std::max(b.cplen_us, b.twork_us);
    EXPECT_GE(b.newlb_us, old_lb);
    newlb_tight += b.newlb_us == opt.makespan_us;
    old_tight += old_lb == opt.makespan_us;
    newlb_better += b.newlb_us > old_lb;
    newlb_gap += static_cast<double>(opt.makespan_us) / static_cast<double>(b.newlb_us);
  }
  std::printf("[ tiny DAGs ] %llu DAGs: NewLB = OPT on %d, max(CPLen, TWork) = OPT on %d, NewLB > max(CPLen, TWork) on %d;"
              " mean OPT / NewLB %.3f\n",
              static_cast<unsigned long long>(kDags), newlb_tight, old_tight, newlb_better, newlb_gap / kDags);
}

}  // namespace
}  // namespace weft
