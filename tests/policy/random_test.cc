// File: tests/policy/random_test.cc
//
// The random baseline: the same seed gives the same schedule, another seed a
// different one; tasks go only where they fit; and a freed machine takes a
// random ready group, not the first in order. Schedule checker attached.
#include <algorithm>
#include <string>
#include <vector>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy::testing {
namespace {

// Four roomy machines and 24 one-core tasks: each placement is a draw among
// four machines, so two seeds agree on all of them with probability 4^-24.
constexpr char kSpread[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 4, "capacity": {"cpu": 32, "mem": 32}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 24, "duration": 1, "demand": {"cpu": 1}}]}]})";

std::vector<uint32_t> Machines(const Run& run) {
  std::vector<uint32_t> m;
  for (uint32_t i = 0; i < 24; ++i) m.push_back(run.Task("j", i).machine.value());
  return m;
}

sim::SimOptions Seed(uint64_t seed) {
  sim::SimOptions o;
  o.seed = seed;
  return o;
}

TEST(RandomPolicyTest, SameSeedSameScheduleOtherSeedOtherSchedule) {
  const auto a = RunPolicy(kSpread, "random", {}, Seed(7));
  const auto b = RunPolicy(kSpread, "random", {}, Seed(7));
  const auto c = RunPolicy(kSpread, "random", {}, Seed(8));
  ASSERT_TRUE(a.status.ok()) << a.status;
  ASSERT_TRUE(b.status.ok()) << b.status;
  ASSERT_TRUE(c.status.ok()) << c.status;
  EXPECT_EQ(Machines(a), Machines(b));
  EXPECT_NE(Machines(a), Machines(c));
  // And it spreads: first fit would put all 24 on m0.
  const std::vector<uint32_t> m = Machines(a);
  EXPECT_TRUE(std::any_of(m.begin(), m.end(), [](uint32_t x) { return x != 0; }));
}

// "small" has 1 core, "large" 4: a 3-core task fits only "large", whatever
// the draw; 1-core tasks may go to either.
constexpr char kOnlyWhereItFits[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "small", "capacity": {"cpu": 1, "mem": 4}},
                           {"name": "large", "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "big", "tasks": 3, "duration": 1, "demand": {"cpu": 3}},
    {"name": "tiny", "tasks": 4, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(RandomPolicyTest, PlacesOnlyWhereTheTaskFits) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto run = RunPolicy(kOnlyWhereItFits, "random", {}, Seed(seed));
    ASSERT_TRUE(run.status.ok()) << "seed " << seed << ": " << run.status;
    for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(run.Task("j", i, 0).machine, MachineId(1)) << "seed " << seed;
  }
}

// One single-core machine held by "blocker" for [0, 1]; ten one-task jobs
// arrive at 0.5 in order. fifo gives the machine to them in arrival order;
// random draws among the queued groups each time it frees.
TEST(RandomPolicyTest, FreedMachineTakesARandomGroup) {
  std::string jobs =
      R"({"name": "blocker", "stages": [{"name": "b", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]})";
  for (int i = 0; i < 10; ++i) {
    jobs += R"(, {"name": "q)" + std::to_string(i) +
            R"(", "arrival": 0.5, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]})";
  }
  const std::string workload = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]}, "jobs": [)" +
                               jobs + "]}";
  int out_of_order = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const auto run = RunPolicy(workload, "random", {}, Seed(seed));
    ASSERT_TRUE(run.status.ok()) << run.status;
    for (int i = 0; i < 10; ++i) {
      if (run.Task("q" + std::to_string(i)).start_us != Sec(1 + i)) ++out_of_order;
    }
  }
  // Arrival order in all five runs has probability (1/10!)^5.
  EXPECT_GT(out_of_order, 0);
}

}  // namespace
}  // namespace weft::policy::testing
