// File: tests/trace/random_workload_test.cc
//
// RandomWorkload: every seed gives a valid workload (it goes through the
// reader), the same seed the same text, the bounds in RandomWorkloadOptions
// hold, and over a few hundred seeds every feature the conformance suite
// relies on shows up (pipelined edges, fan-in and fan-out, phases, locality,
// usage below demand, per-task durations, deadlines, several users,
// heterogeneous machines, simultaneous arrivals).
#include "trace/random_workload.h"

#include <set>
#include <string>

#include "core/status.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

constexpr uint64_t kSeeds = 300;

TEST(RandomWorkloadTest, EverySeedGivesAValidWorkloadWithinTheBounds) {
  const RandomWorkloadOptions o;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    auto w = RandomWorkload(seed, o);
    ASSERT_TRUE(w.ok()) << "seed " << seed << ": " << StatusMessage(w.status()) << "\n" << RandomWorkloadJson(seed);
    EXPECT_GE(w->jobs.size(), o.min_jobs);
    EXPECT_LE(w->jobs.size(), o.max_jobs);
    EXPECT_GE(w->cluster.size(), 1u);
    EXPECT_LE(w->cluster.size(), o.max_machines);
    EXPECT_GE(w->users.size(), 1u);
    EXPECT_LE(w->users.size(), 3u);
    for (const Machine& m : w->cluster.machines()) {
      for (int r = 0; r < kNumResources; ++r) EXPECT_GT(m.capacity.micro(static_cast<Resource>(r)), 0);
    }
    for (const Job& job : w->jobs) {
      EXPECT_LE(job.stages.size(), o.max_stages);
      EXPECT_EQ(job.topo_order.size(), job.stages.size());
      for (const Stage& s : job.stages) {
        EXPECT_LE(s.num_tasks, o.max_tasks);
        EXPECT_GT(s.demand.micro(kCpu), 0);
        EXPECT_TRUE(s.usage.FitsIn(s.demand));
        // Stages given by phases alone carry their nominal phase time.
        EXPECT_GT(s.duration_us, 0);
        EXPECT_EQ(s.duration_from_phases, !s.phases.empty());
      }
    }
  }
}

TEST(RandomWorkloadTest, SameSeedSameWorkloadOtherSeedOtherWorkload) {
  EXPECT_EQ(RandomWorkloadJson(42), RandomWorkloadJson(42));
  std::set<std::string> distinct;
  for (uint64_t seed = 0; seed < 50; ++seed) distinct.insert(RandomWorkloadJson(seed));
  EXPECT_EQ(distinct.size(), 50u);
}

TEST(RandomWorkloadTest, OptionsShrinkTheWorkload) {
  RandomWorkloadOptions o;
  o.min_jobs = o.max_jobs = 1;
  o.max_stages = 1;
  o.max_tasks = 1;
  o.max_machines = 1;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    auto w = RandomWorkload(seed, o);
    ASSERT_TRUE(w.ok()) << StatusMessage(w.status());
    ASSERT_EQ(w->jobs.size(), 1u);
    EXPECT_EQ(w->jobs[0].stages.size(), 1u);
    EXPECT_EQ(w->jobs[0].num_tasks, 1u);
    EXPECT_EQ(w->cluster.size(), 1u);
  }
}

TEST(RandomWorkloadTest, SeedsCoverEveryFeature) {
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    auto w = RandomWorkload(seed);
    ASSERT_TRUE(w.ok());
    if (w->users.size() > 1) seen.insert("several users");
    std::set<std::string> capacities;
    for (const Machine& m : w->cluster.machines()) capacities.insert(m.capacity.ToString());
    if (capacities.size() > 1) seen.insert("heterogeneous machines");
    for (size_t j = 0; j < w->jobs.size(); ++j) {
      const Job& job = w->jobs[j];
      if (j > 0 && job.arrival_us == w->jobs[j - 1].arrival_us) seen.insert("simultaneous arrivals");
      if (job.arrival_us > 0) seen.insert("later arrivals");
      if (job.deadline_us) seen.insert("deadline");
      if (job.priority > 0) seen.insert("priority");
      if (job.weight != 1.0) seen.insert("weight");
      if (job.stages.size() == 1) seen.insert("single stage");
      for (const Stage& s : job.stages) {
        if (!s.phases.empty()) seen.insert("phases");
        if (!s.locality.empty()) seen.insert("locality");
        if (!s.durations_us.empty()) seen.insert("per-task durations");
        if (s.usage != s.demand) seen.insert("usage below demand");
        if (s.parents.size() > 1) seen.insert("fan-in");
        if (s.children.size() > 1) seen.insert("fan-out");
        for (const Edge& e : s.parents) seen.insert(e.kind == EdgeKind::kPipelined ? "pipelined" : "barrier");
      }
    }
  }
  for (const char* feature :
       {"several users", "heterogeneous machines", "simultaneous arrivals", "later arrivals", "deadline",
        "priority", "weight", "single stage", "phases", "locality", "per-task durations", "usage below demand",
        "fan-in", "fan-out", "pipelined", "barrier"}) {
    EXPECT_TRUE(seen.contains(feature)) << "no seed below " << kSeeds << " has " << feature;
  }
}

}  // namespace
}  // namespace weft
