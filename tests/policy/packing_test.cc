// File: tests/policy/packing_test.cc
//
// policy/common/packing.h: the Tetris alignment score on hand-computed
// values (normalized by the machine's capacity; resources the machine lacks
// ignored), against a live ClusterState, and the remaining work of a job as
// its tasks finish, as clairvoyant and non-clairvoyant policies see it.
#include "policy/common/packing.h"

#include <string_view>
#include <vector>

#include "core/status.h"
#include "gtest/gtest.h"
#include "trace/workload_reader.h"

namespace weft::policy {
namespace {

Resources R(double cpu, double mem, double disk = 0, double net = 0) {
  auto r = Resources::FromUnits({cpu, mem, disk, net});
  EXPECT_TRUE(r.ok());
  return *r;
}

TEST(PackingTest, AlignmentIsNormalizedDotProduct) {
  // (2/8)(4/8) + (4/16)(8/16) = 0.125 + 0.125.
  EXPECT_DOUBLE_EQ(Alignment(R(2, 4), R(4, 8), R(8, 16)), 0.25);
  // Disk counts too: + (50/100)(100/100).
  EXPECT_DOUBLE_EQ(Alignment(R(2, 4, 50), R(4, 8, 100), R(8, 16, 100)), 0.75);
}

TEST(PackingTest, AlignmentIgnoresResourcesTheMachineLacks) {
  // The machine has no net: the task's net demand adds nothing (and no NaN).
  EXPECT_DOUBLE_EQ(Alignment(R(1, 1, 0, 10), R(4, 4), R(4, 4)), 0.5);
  EXPECT_DOUBLE_EQ(Alignment(R(1, 1), R(0, 0), R(4, 4)), 0);
}

TEST(PackingTest, AlignmentPrefersTheComplementaryMachine) {
  // A cpu-heavy task aligns better with a machine whose free room is cpu.
  const Resources cap = R(4, 4);
  const Resources cpu_heavy = R(3, 1);
  EXPECT_DOUBLE_EQ(Alignment(cpu_heavy, R(3, 1), cap), 10.0 / 16);
  EXPECT_DOUBLE_EQ(Alignment(cpu_heavy, R(1, 3), cap), 6.0 / 16);
}

constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "small", "capacity": {"cpu": 4, "mem": 8}},
                           {"name": "big", "capacity": {"cpu": 8, "mem": 4, "disk": 100}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 1, "durations": [2, 4], "demand": {"cpu": 2, "mem": 2}},
    {"name": "b", "tasks": 3, "duration": 3, "demand": {"cpu": 4, "disk": 50}, "after": ["a"]}]}]})";

Workload Parse(std::string_view text) {
  auto w = ParseWorkload(text);
  EXPECT_TRUE(w.ok()) << StatusMessage(w.status());
  return std::move(*w);
}

TEST(PackingTest, MachineAlignmentUsesLiveFreeResources) {
  const Workload w = Parse(kWorkload);
  ClusterState cluster(w.cluster);
  const MachineId big(1);
  // Idle "big" (8, 4, 100): (2/8)(8/8) + (2/4)(4/4) = 0.75.
  EXPECT_DOUBLE_EQ(MachineAlignment(cluster, big, R(2, 2)), 0.75);
  cluster.Allocate(big, R(4, 2));
  // Free (4, 2): (2/8)(4/8) + (2/4)(2/4) = 0.375.
  EXPECT_DOUBLE_EQ(MachineAlignment(cluster, big, R(2, 2)), 0.375);
}

TEST(PackingTest, ReferenceCapacityIsTheLargestPerResource) {
  const Workload w = Parse(kWorkload);
  const ClusterState cluster(w.cluster);
  EXPECT_EQ(ReferenceCapacity(cluster), R(8, 8, 100, 0));
  // cpu 4/8 + mem 2/8 + disk 50/100; net has no reference and is ignored.
  EXPECT_DOUBLE_EQ(DemandSize(R(4, 2, 50, 7), ReferenceCapacity(cluster)), 1.25);
}

TEST(PackingTest, RemainingWorkSumsUnfinishedTasksAndShrinks) {
  const Workload w = Parse(kWorkload);
  const ClusterState cluster(w.cluster);
  const Resources ref = ReferenceCapacity(cluster);  // (8, 8, 100)
  JobProgress progress(w.jobs[0]);
  const KnowledgeOptions options;
  const JobView job(JobId(0), w.jobs[0], progress, Knowledge::kClairvoyant, options);
  // a: size 2/8 + 2/8 = 0.5, tasks 2 s and 4 s -> 3. b: size 4/8 + 50/100 = 1,
  // three 3 s tasks -> 9.
  EXPECT_DOUBLE_EQ(TaskWork(job, TaskRef{JobId(0), 0, 1}, ref), 2.0);
  EXPECT_DOUBLE_EQ(RemainingWork(job, ref), 12.0);
  // Running tasks still count; done ones do not.
  progress.state(TaskRef{JobId(0), 0, 0}) = TaskState::kRunning;
  EXPECT_DOUBLE_EQ(RemainingWork(job, ref), 12.0);
  progress.state(TaskRef{JobId(0), 0, 1}) = TaskState::kDone;
  EXPECT_DOUBLE_EQ(RemainingWork(job, ref), 10.0);
  progress.state(TaskRef{JobId(0), 1, 2}) = TaskState::kDone;
  EXPECT_DOUBLE_EQ(RemainingWork(job, ref), 7.0);
}

TEST(PackingTest, NonClairvoyantRemainingWorkUsesEstimates) {
  const Workload w = Parse(kWorkload);
  const ClusterState cluster(w.cluster);
  JobProgress progress(w.jobs[0]);
  KnowledgeOptions options;
  options.default_duration_us = 2 * kUsPerSecond;
  const JobView job(JobId(0), w.jobs[0], progress, Knowledge::kNonClairvoyant, options);
  // Every task assumed to take 2 s: a 2 x 2 x 0.5 = 2, b 3 x 2 x 1 = 6.
  EXPECT_DOUBLE_EQ(RemainingWork(job, ReferenceCapacity(cluster)), 8.0);
}

}  // namespace
}  // namespace weft::policy
