#include "model/job.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Stage CpuStage(double cores, TimeUs duration_us, uint32_t tasks) {
  Stage s;
  s.num_tasks = tasks;
  s.duration_us = duration_us;
  s.demand = Resources::FromUnits({cores, 0, 0, 0}).value();
  return s;
}

TEST(StageTest, TaskDurationUsesOverridesWhenGiven) {
  Stage s = CpuStage(1, 2'000'000, 3);
  EXPECT_EQ(s.TaskDuration(2), 2'000'000);
  s.durations_us = {1, 2, 3};
  EXPECT_EQ(s.TaskDuration(0), 1);
  EXPECT_EQ(s.TaskDuration(2), 3);
}

TEST(StageTest, PreferencesAreEmptyBeyondLocalityList) {
  Stage s = CpuStage(1, 1, 3);
  s.locality = {{MachineId(4), MachineId(2)}};
  EXPECT_THAT(s.Preferences(0), ElementsAre(MachineId(4), MachineId(2)));
  EXPECT_THAT(s.Preferences(1), IsEmpty());
  EXPECT_THAT(s.Preferences(2), IsEmpty());
}

TEST(StageTest, HasPipelinedParentLooksAtParentsOnly) {
  Stage s = CpuStage(1, 1, 1);
  EXPECT_FALSE(s.HasPipelinedParent());
  s.children.push_back(Edge{1, EdgeKind::kPipelined});
  EXPECT_FALSE(s.HasPipelinedParent());
  s.parents.push_back(Edge{0, EdgeKind::kBarrier});
  EXPECT_FALSE(s.HasPipelinedParent());
  s.parents.push_back(Edge{2, EdgeKind::kPipelined});
  EXPECT_TRUE(s.HasPipelinedParent());
}

TEST(JobTest, CpuSecondsMultipliesCoresDurationAndTasks) {
  Job job;
  job.stages.push_back(CpuStage(2, 1'500'000, 10));  // 30 core-seconds
  Stage varied = CpuStage(0.5, 0, 2);
  varied.durations_us = {1'000'000, 3'000'000};  // 0.5 * (1 + 3) = 2
  job.stages.push_back(varied);
  EXPECT_DOUBLE_EQ(job.CpuSeconds(), 32.0);
}

TEST(JobTest, CpuSecondsOfPhaseOnlyStageCountsCpuPhases) {
  Job job;
  Stage s = CpuStage(1, 0, 4);
  s.phases = {Phase{kNet, 64}, Phase{kCpu, 0.5}, Phase{kDisk, 16}, Phase{kCpu, 0.25}};
  s.duration_from_phases = true;
  job.stages.push_back(s);
  EXPECT_DOUBLE_EQ(job.CpuSeconds(), 3.0);
}

}  // namespace
}  // namespace weft
