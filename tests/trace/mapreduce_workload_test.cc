// File: tests/trace/mapreduce_workload_test.cc
//
// The MapReduce generator (trace/mapreduce_workload.h): each job's shape
// follows its input size (one map per block, the last one the remainder;
// reducers from the ratio behind a shuffle edge), blocks sit on distinct
// replica machines placed as HDFS does, the locality cost is on only when
// both bandwidths are given, bad specs are refused by name, and one seed
// always gives the same workload.
#include <cmath>
#include <set>

#include "gtest/gtest.h"
#include "model/shuffle.h"
#include "trace/mapreduce_workload.h"

namespace weft {
namespace {

MapReduceSpec Small() {
  MapReduceSpec s;
  s.machines = 12;
  s.rack_size = 4;
  s.jobs = 20;
  s.max_input_mb = 2000;
  s.seed = 3;
  return s;
}

TEST(MapReduceWorkloadTest, OneMapPerBlockReadingItsBlockOnThreeReplicas) {
  const MapReduceSpec spec = Small();
  auto w = MapReduceWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->jobs.size(), 20u);
  EXPECT_EQ(w->cluster.size(), 12u);
  EXPECT_EQ(w->cluster.num_racks(), 3u);
  EXPECT_FALSE(w->cluster.locality_cost().enabled);
  EXPECT_EQ(w->users.size(), 20u);  // one user per job by default
  for (const Job& job : w->jobs) {
    const Stage& map = job.stages[0];
    EXPECT_EQ(map.kind, "map");
    double input = 0;
    for (uint32_t i = 0; i < map.num_tasks; ++i) {
      const double block = map.TaskInputMb(i);
      input += block;
      if (i + 1 < map.num_tasks) {
        EXPECT_EQ(block, 128);
      }
      EXPECT_GT(block, 0);
      EXPECT_LE(block, 128);
      // Duration proportional to the block: 4 s for a whole one.
      EXPECT_NEAR(static_cast<double>(map.TaskDuration(i)) / 1e6, 4 * block / 128, 1e-3);
      const auto replicas = map.Preferences(i);
      ASSERT_EQ(replicas.size(), 3u);
      std::set<uint32_t> machines;
      for (MachineId m : replicas) machines.insert(m.value());
      EXPECT_EQ(machines.size(), 3u) << job.name << " map " << i;
      // HDFS: the 2nd and 3rd replicas share a rack other than the first's.
      EXPECT_EQ(w->cluster.machine(replicas[1]).rack, w->cluster.machine(replicas[2]).rack);
      EXPECT_NE(w->cluster.machine(replicas[0]).rack, w->cluster.machine(replicas[1]).rack);
    }
    EXPECT_GE(input, 64 - 1e-3);
    EXPECT_LE(input, 2000 + 1e-3);
    EXPECT_EQ(map.num_tasks, static_cast<uint32_t>(std::ceil(input / 128 - 1e-6)));
    ASSERT_EQ(job.stages.size(), 2u);
    const Stage& reduce = job.stages[1];
    EXPECT_EQ(reduce.kind, "reduce");
    EXPECT_EQ(reduce.num_tasks, static_cast<uint32_t>(std::ceil(map.num_tasks * 0.1 - 1e-9)));
    ASSERT_EQ(reduce.parents.size(), 1u);
    EXPECT_EQ(reduce.parents[0].kind, EdgeKind::kShuffle);
    EXPECT_EQ(reduce.parents[0].slowstart, 1);
    EXPECT_NEAR(reduce.parents[0].shuffle_mb, 12.8 / reduce.num_tasks, 1e-3);
  }
}

TEST(MapReduceWorkloadTest, MapOnlyJobsAndTheLocalityCost) {
  MapReduceSpec spec = Small();
  spec.reduce_ratio = 0;
  spec.rack_mbps = 100;
  spec.cross_rack_mbps = 40;
  auto w = MapReduceWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const Job& job : w->jobs) EXPECT_EQ(job.stages.size(), 1u);
  spec.users = 3;
  EXPECT_EQ(MapReduceWorkload(spec)->users.size(), 3u);
  EXPECT_TRUE(w->cluster.locality_cost().enabled);
  EXPECT_EQ(w->cluster.locality_cost().cross_rack_mbps, 40);
}

TEST(MapReduceWorkloadTest, OneRackHoldsEveryReplicaOnDistinctMachines) {
  MapReduceSpec spec = Small();
  spec.machines = 3;
  spec.rack_size = 8;
  auto w = MapReduceWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const Job& job : w->jobs) {
    for (uint32_t i = 0; i < job.stages[0].num_tasks; ++i) {
      const auto r = job.stages[0].Preferences(i);
      ASSERT_EQ(r.size(), 3u);
      EXPECT_EQ(std::set<uint32_t>({r[0].value(), r[1].value(), r[2].value()}).size(), 3u);
    }
  }
}

TEST(MapReduceWorkloadTest, SameSeedSameWorkload) {
  MapReduceSpec spec = Small();
  const std::string a = MapReduceWorkloadJson(spec).dump();
  EXPECT_EQ(a, MapReduceWorkloadJson(spec).dump());
  spec.seed = 4;
  EXPECT_NE(a, MapReduceWorkloadJson(spec).dump());
}

TEST(MapReduceWorkloadTest, RefusesBadSpecsByFlagName) {
  MapReduceSpec spec = Small();
  spec.rack_mbps = 100;
  EXPECT_EQ(CheckMapReduceSpec(spec).message(),
            "--rack-mbps: give both --rack-mbps and --cross-rack-mbps (the locality cost), or neither");
  spec = Small();
  spec.slowstart = 0;
  EXPECT_EQ(CheckMapReduceSpec(spec).message(), "--slowstart: must be a fraction in (0, 1]");
  spec = Small();
  spec.max_input_mb = 10;
  EXPECT_EQ(CheckMapReduceSpec(spec).message(), "--max-input-mb: must be a number >= --min-input-mb");
  spec = Small();
  spec.block_mb = 0;
  EXPECT_EQ(CheckMapReduceSpec(spec).message(), "--block-mb: must be a number > 0, not 0");
}

}  // namespace
}  // namespace weft
