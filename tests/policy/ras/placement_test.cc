// RAS's Placement Algorithm (Algorithm 1) on hand-checked cycles: reducers
// first and spread, map slots filled greedily by lowest utility within each
// TaskTracker's capacity, and slots moved from a high-utility job to a new
// one only while the donor stays at or above the lowest utility.
#include "policy/ras/placement.h"

#include <vector>

#include "gtest/gtest.h"
#include "policy/ras/utility.h"

namespace weft::policy::ras {
namespace {

Resources R(double cpu, double mem) { return *Resources::FromUnits({cpu, mem, 0, 0}); }

// Maps, Reduces: job's row of the placement, one count per machine.
std::vector<uint32_t> Row(const Placement& p, SlotKind kind, size_t job) {
  std::vector<uint32_t> row;
  for (size_t m = 0; m < p.machines(); ++m) row.push_back(p.count(kind, job, m));
  return row;
}
std::vector<uint32_t> Maps(const Placement& p, size_t job) { return Row(p, SlotKind::kMap, job); }
std::vector<uint32_t> Reduces(const Placement& p, size_t job) { return Row(p, SlotKind::kReduce, job); }

TEST(RasPlacementTest, ReducersFirstThenMapsByLowestUtility) {
  // Two TaskTrackers of 2 cores and 4 GB. A: maps of 1 core 1 GB (10 left),
  // one reducer of 2 GB; B: maps of 0.5 core 1 GB (2 left). Relaxed goals
  // (s_req = 1).
  const std::vector<PlacementJob> jobs = {
      {.map_profile = R(1, 1), .reduce_profile = R(0, 2), .s_pend = 10, .s_req = 1, .r_pend = 1, .r_placeable = 1},
      {.map_profile = R(0.5, 1), .reduce_profile = R(0, 0), .s_pend = 2, .s_req = 1},
  };
  const std::vector<Resources> capacity = {R(2, 4), R(2, 4)};
  const std::vector<Resources> reserved = {R(0, 0), R(0, 0)};
  const Placement p = Place(jobs, capacity, reserved, {true, true}, Placement(2, 2), 10);
  // A's reducer on m0 (first of the two empty TaskTrackers); on m0, A's map
  // (tie at kNoMapSlot, lower index first), then B's, then memory is full
  // (2 + 1 + 1 GB); on m1, A then B (B's map phase then fully placed: u = 1),
  // then cpu is full.
  EXPECT_EQ(Reduces(p, 0), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(Maps(p, 0), (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(Maps(p, 1), (std::vector<uint32_t>{1, 1}));
  EXPECT_NEAR(Utility(jobs[0], p, 0), 1.0 / 9, 1e-12);
  EXPECT_DOUBLE_EQ(Utility(jobs[1], p, 1), 1.0);
}

TEST(RasPlacementTest, SlotsMoveToANewJobWhileTheDonorStaysAbove) {
  // One TaskTracker of 2 cores, 4 GB, full with B's 4 maps (u_B = 1). A
  // arrives (u_A = kNoMapSlot). Round 1: one B slot goes (u_B 2/3), A gets
  // it (u_A 0). Round 2: another (u_B 1/3 >= 0), A gets it (1/9). Round 3:
  // taking a third would drop B to 0 < 1/9: put back, nothing changes.
  const std::vector<PlacementJob> jobs = {
      {.map_profile = R(0.5, 1), .s_pend = 10, .s_req = 1},
      {.map_profile = R(0.5, 1), .s_pend = 4, .s_req = 1},
  };
  Placement current(2, 1);
  current.Set(SlotKind::kMap, 1, 0, 4);
  const std::vector<Resources> capacity = {R(2, 4)};
  const std::vector<Resources> reserved = {R(2, 4)};
  const Placement p = Place(jobs, capacity, reserved, {true}, current, 10);
  EXPECT_EQ(p.map(0, 0), 2u);
  EXPECT_EQ(p.map(1, 0), 2u);
  EXPECT_NEAR(Utility(jobs[0], p, 0), 1.0 / 9, 1e-12);
  EXPECT_NEAR(Utility(jobs[1], p, 1), 1.0 / 3, 1e-12);
  // With one round only, A gets one slot.
  const Placement one = Place(jobs, capacity, reserved, {true}, current, 1);
  EXPECT_EQ(one.map(0, 0), 1u);
  EXPECT_EQ(one.map(1, 0), 3u);
}

TEST(RasPlacementTest, ReducersSpreadBeforeDoublingUp) {
  // Three TaskTrackers; J0 has 2 reducers, J1 has 2. J0 takes m0 and m1;
  // J1's TaskTrackers sorted by (reducers there, J1's there) are m2, m0, m1:
  // one on the empty m2 first, the fourth reducer of the cycle must double
  // up somewhere and goes to m0 (lowest id among the ties), never two of J1
  // together.
  const std::vector<PlacementJob> jobs = {
      {.reduce_profile = R(0, 1), .r_pend = 2, .r_placeable = 2},
      {.reduce_profile = R(0, 1), .r_pend = 2, .r_placeable = 2},
  };
  const std::vector<Resources> capacity(3, R(2, 4));
  const std::vector<Resources> reserved(3, R(0, 0));
  const Placement p = Place(jobs, capacity, reserved, {true, true, true}, Placement(2, 3), 10);
  EXPECT_EQ(Reduces(p, 0), (std::vector<uint32_t>{1, 1, 0}));
  EXPECT_EQ(Reduces(p, 1), (std::vector<uint32_t>{1, 0, 1}));
  // A TaskTracker without room for a reducer is skipped: m0 is full, m1 has
  // 1 GB left, m2 2 GB.
  const std::vector<Resources> held = {R(0, 4), R(0, 3), R(0, 2)};
  const Placement q = Place(jobs, capacity, held, {true, true, true}, Placement(2, 3), 10);
  EXPECT_EQ(Reduces(q, 0), (std::vector<uint32_t>{0, 1, 1}));
  EXPECT_EQ(Reduces(q, 1), (std::vector<uint32_t>{0, 0, 1}));
}

TEST(RasPlacementTest, NothingOnADownMachineOrBeyondCapacity) {
  const std::vector<PlacementJob> jobs = {{.map_profile = R(1, 1), .s_pend = 100, .s_req = 1}};
  const std::vector<Resources> capacity = {R(3, 8), R(3, 8)};
  const std::vector<Resources> reserved = {R(0.5, 0), R(0, 0)};
  const Placement p = Place(jobs, capacity, reserved, {true, false}, Placement(1, 2), 10);
  EXPECT_EQ(Maps(p, 0), (std::vector<uint32_t>{2, 0}));  // 0.5 + 2 x 1 <= 3 cores
}

}  // namespace
}  // namespace weft::policy::ras
