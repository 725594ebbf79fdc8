#include "model/cluster.h"

#include "gtest/gtest.h"

namespace weft {
namespace {

Resources Caps(double cpu, double mem) { return Resources::FromUnits({cpu, mem, 0, 0}).value(); }

TEST(ClusterTest, EmptyClusterHasNothing) {
  const Cluster c;
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.num_racks(), 0u);
  EXPECT_TRUE(c.total_capacity().IsZero());
  EXPECT_FALSE(c.Find("m0").valid());
  EXPECT_FALSE(c.AnyMachineFits(Resources()));
}

TEST(ClusterTest, AddMachineAssignsIdsInOrder) {
  Cluster c;
  EXPECT_EQ(c.AddMachine("a", RackId(0), Caps(4, 8)), MachineId(0));
  EXPECT_EQ(c.AddMachine("b", RackId(0), Caps(2, 16)), MachineId(1));
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.machine(MachineId(1)).name, "b");
  EXPECT_EQ(c.machine(MachineId(1)).capacity, Caps(2, 16));
  EXPECT_EQ(c.machines()[0].name, "a");
}

TEST(ClusterTest, FindLooksUpByName) {
  Cluster c;
  c.AddMachine("m0", RackId(0), Caps(1, 1));
  c.AddMachine("m1", RackId(0), Caps(1, 1));
  EXPECT_EQ(c.Find("m1"), MachineId(1));
  EXPECT_EQ(c.Find("m0"), MachineId(0));
  EXPECT_FALSE(c.Find("m2").valid());
  EXPECT_FALSE(c.Find("m").valid());
}

TEST(ClusterTest, CountsRacksFromHighestRackId) {
  Cluster c;
  c.AddMachine("a", RackId(0), Caps(1, 1));
  c.AddMachine("b", RackId(2), Caps(1, 1));
  c.AddMachine("c", RackId(1), Caps(1, 1));
  EXPECT_EQ(c.num_racks(), 3u);
  EXPECT_EQ(c.machine(MachineId(1)).rack, RackId(2));
}

TEST(ClusterTest, SumsTotalCapacity) {
  Cluster c;
  c.AddMachine("a", RackId(0), Caps(4, 8));
  c.AddMachine("b", RackId(0), Caps(2.5, 16));
  EXPECT_EQ(c.total_capacity(), Caps(6.5, 24));
}

TEST(ClusterTest, AnyMachineFitsChecksEachMachineAlone) {
  Cluster c;
  c.AddMachine("big-cpu", RackId(0), Caps(16, 4));
  c.AddMachine("big-mem", RackId(0), Caps(2, 64));
  EXPECT_TRUE(c.AnyMachineFits(Caps(16, 4)));
  EXPECT_TRUE(c.AnyMachineFits(Caps(2, 64)));
  // Fits the cluster's total but no single machine.
  EXPECT_FALSE(c.AnyMachineFits(Caps(16, 64)));
  EXPECT_FALSE(c.AnyMachineFits(Resources::FromUnits({1, 1, 1, 0}).value()));
}

}  // namespace
}  // namespace weft
