// File: tests/policy/machine_finder_test.cc
//
// MachineFinder: FirstFit is the lowest-numbered machine where a demand fits,
// however machines fill and empty. Its search skips the words of its bitset
// it has seen empty; this checks that a machine freed below them is found
// again, against a scan of every machine.
#include "policy/common/machine_finder.h"

#include <string>

#include "gtest/gtest.h"
#include "model/cluster.h"
#include "policy/cluster_state.h"

namespace weft::policy {
namespace {

Resources Cores(double n) {
  Resources r;
  r.set_micro(kCpu, static_cast<int64_t>(n * kMicroUnits));
  return r;
}

// Scan: the lowest-numbered machine where `demand` fits, looking at all.
MachineId Scan(const ClusterState& state, const Resources& demand) {
  for (uint32_t m = 0; m < state.size(); ++m) {
    if (state.Fits(MachineId(m), demand)) return MachineId(m);
  }
  return MachineId();
}

TEST(MachineFinderTest, FirstFitFindsAMachineFreedBelowTheSearchedWords) {
  Cluster cluster;
  for (int m = 0; m < 200; ++m) cluster.AddMachine("m" + std::to_string(m), RackId(0), Cores(1));
  ClusterState state(cluster);
  MachineFinder finder(state);
  finder.NoteDemand(Cores(1));
  // Fill machines 0..149 (more than two 64-machine words), searching as a
  // scheduler does: each search starts where the last found room.
  for (int i = 0; i < 150; ++i) {
    const MachineId m = finder.FirstFit(Cores(1));
    ASSERT_EQ(m, Scan(state, Cores(1)));
    ASSERT_EQ(m, MachineId(static_cast<uint32_t>(i)));
    state.Allocate(m, Cores(1));
    finder.Refresh(m);
  }
  // Machine 5 (in the first word) empties: the next search finds it.
  state.Deallocate(MachineId(5), Cores(1));
  finder.Refresh(MachineId(5));
  EXPECT_EQ(finder.FirstFit(Cores(1)), MachineId(5));
  state.Allocate(MachineId(5), Cores(1));
  finder.Refresh(MachineId(5));
  EXPECT_EQ(finder.FirstFit(Cores(1)), MachineId(150));
  // Everything full: nothing fits.
  for (uint32_t m = 150; m < 200; ++m) {
    state.Allocate(MachineId(m), Cores(1));
    finder.Refresh(MachineId(m));
  }
  EXPECT_FALSE(finder.FirstFit(Cores(1)).valid());
  // Machine 70 (the second word) empties, then 3 (the first).
  state.Deallocate(MachineId(70), Cores(1));
  finder.Refresh(MachineId(70));
  EXPECT_EQ(finder.FirstFit(Cores(1)), MachineId(70));
  state.Deallocate(MachineId(3), Cores(1));
  finder.Refresh(MachineId(3));
  EXPECT_EQ(finder.FirstFit(Cores(1)), MachineId(3));
  EXPECT_EQ(finder.num_candidates(), 2u);
}

}  // namespace
}  // namespace weft::policy
