// File: tests/trace/alibaba_reader_test.cc
//
// Alibaba 2018 batch_task rows -> weft jobs, on hand-written rows: the DAG
// from task names, task counts, durations, demands, arrivals, the skip rules
// (cycles, unknown parents, ...), the job filters and the seeded sample.
#include "trace/alibaba_reader.h"

#include <set>
#include <sstream>
#include <string>

#include "core/status.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kHeader[] =
    "job_name,task_name,instance_num,status,start_time,end_time,duration,plan_cpu,plan_mem,avg_instance_duration\n";

std::vector<AlibabaTaskRow> Rows(const std::string& body) {
  std::istringstream in(kHeader + body);
  auto rows = ReadAlibabaTaskRows(in, "t.csv");
  EXPECT_TRUE(rows.ok()) << rows.status();
  return rows.ok() ? *rows : std::vector<AlibabaTaskRow>{};
}

AlibabaConversion Convert(const std::string& body, const AlibabaOptions& options = {}) {
  auto out = ConvertAlibabaRows(Rows(body), options);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? std::move(*out) : AlibabaConversion{};
}

std::vector<std::string> StageNames(const Job& job) {
  std::vector<std::string> names;
  for (const Stage& s : job.stages) names.push_back(s.name);
  return names;
}

std::vector<std::string> ParentNames(const Job& job, const std::string& stage) {
  std::vector<std::string> names;
  for (const Stage& s : job.stages) {
    if (s.name != stage) continue;
    for (const Edge& e : s.parents) {
      EXPECT_EQ(e.kind, EdgeKind::kBarrier);
      names.push_back(job.stages[e.stage].name);
    }
  }
  return names;
}

const Stage& StageNamed(const Job& job, const std::string& name) {
  for (const Stage& s : job.stages) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no stage " << name;
  return job.stages.front();
}

// The example DAG of trace_2018.md section 2.3, rows shuffled.
constexpr char kDocExample[] =
    "job_a,M5_3_4,2,Terminated,1000,1010,,100,0.5,\n"
    "job_a,M3_1,1,Terminated,1000,1003,,50,0.3,\n"
    "job_a,M1,4,Terminated,1000,1002,,100,0.2,\n"
    "job_a,R4_2,1,Terminated,1001,1009,,200,1.5,\n"
    "job_a,M2_1,3,Terminated,1000,1004,,100,0.2,\n";

TEST(AlibabaReaderTest, BuildsTheDagFromTaskNames) {
  const AlibabaConversion out = Convert(kDocExample);
  ASSERT_EQ(out.workload.jobs.size(), 1u);
  const Job& job = out.workload.jobs[0];
  EXPECT_EQ(job.name, "job_a");
  EXPECT_THAT(StageNames(job), ElementsAre("M1", "M2_1", "M3_1", "R4_2", "M5_3_4"));  // parents first, by number
  EXPECT_THAT(ParentNames(job, "M1"), ElementsAre());
  EXPECT_THAT(ParentNames(job, "M2_1"), ElementsAre("M1"));
  EXPECT_THAT(ParentNames(job, "M3_1"), ElementsAre("M1"));
  EXPECT_THAT(ParentNames(job, "R4_2"), ElementsAre("M2_1"));
  EXPECT_THAT(ParentNames(job, "M5_3_4"), ElementsAre("M3_1", "R4_2"));
  EXPECT_EQ(job.num_tasks, 4u + 3 + 1 + 1 + 2);
}

TEST(AlibabaReaderTest, InstancesDemandsAndSpansBecomeTasks) {
  const AlibabaConversion out = Convert(kDocExample);
  const Job& job = out.workload.jobs[0];
  const Stage& r4 = StageNamed(job, "R4_2");
  EXPECT_EQ(r4.num_tasks, 1u);
  EXPECT_EQ(r4.duration_us, 8 * kUsPerSecond);  // no duration columns: end - start
  EXPECT_DOUBLE_EQ(r4.demand.units(kCpu), 2.0);      // plan_cpu 200 = 2 cores
  EXPECT_DOUBLE_EQ(r4.demand.units(kMem), 1.5);      // plan_mem as is: percent of a machine
  EXPECT_EQ(StageNamed(job, "M1").num_tasks, 4u);
  EXPECT_DOUBLE_EQ(StageNamed(job, "M3_1").demand.units(kCpu), 0.5);
  EXPECT_EQ(job.arrival_us, 0);  // the only job: arrives first
  // The cluster: one Alibaba machine by default.
  ASSERT_EQ(out.workload.cluster.size(), 1u);
  EXPECT_DOUBLE_EQ(out.workload.cluster.machine(MachineId(0)).capacity.units(kCpu), 96.0);
  EXPECT_DOUBLE_EQ(out.workload.cluster.machine(MachineId(0)).capacity.units(kMem), 100.0);
}

TEST(AlibabaReaderTest, InstanceDurationPrefersMeasuredMeansAndIsAtLeastOneSecond) {
  const AlibabaConversion out = Convert(
      "j,M1,1,Terminated,0,100,40,100,0.2,12.345\n"   // avg_instance_duration first
      "j,M2_1,1,Terminated,0,100,40.5,100,0.2,\n"     // then duration
      "j,M3_2,1,Terminated,50,50,,100,0.2,\n"         // then end - start, here 0 -> 1 s
      "j,M4_3,1,Terminated,0,100,0.25,100,0.2,\n");   // under a second -> 1 s
  const Job& job = out.workload.jobs[0];
  EXPECT_EQ(StageNamed(job, "M1").duration_us, 12'345'000);
  EXPECT_EQ(StageNamed(job, "M2_1").duration_us, 40'500'000);
  EXPECT_EQ(StageNamed(job, "M3_2").duration_us, kUsPerSecond);
  EXPECT_EQ(StageNamed(job, "M4_3").duration_us, kUsPerSecond);
}

TEST(AlibabaReaderTest, ArrivalsAreEarliestStartsRelativeToTheFirstJob) {
  const AlibabaConversion out = Convert(
      "late,M1,1,Terminated,5000,5001,,100,0.2,\n"
      "early,M2,1,Terminated,1200,1201,,100,0.2,\n"
      "early,M1,1,Terminated,1000,1001,,100,0.2,\n");
  ASSERT_EQ(out.workload.jobs.size(), 2u);
  EXPECT_EQ(out.workload.jobs[0].name, "early");  // written in arrival order
  EXPECT_EQ(out.workload.jobs[0].arrival_us, 0);
  EXPECT_EQ(out.workload.jobs[1].arrival_us, 4000 * kUsPerSecond);
}

TEST(AlibabaReaderTest, RepeatedParentsCountOnceAndIndependentTasksAreRoots) {
  const AlibabaConversion out = Convert(
      "j,R3_1_2_1,1,Terminated,0,1,,100,0.2,\n"
      "j,M1,1,Terminated,0,1,,100,0.2,\n"
      "j,task_Nzg3ODAw==,2,Terminated,0,1,,100,0.2,\n"
      "j,M2,1,Terminated,0,1,,100,0.2,\n");
  const Job& job = out.workload.jobs[0];
  EXPECT_THAT(StageNames(job), ElementsAre("M1", "M2", "R3_1_2_1", "task_Nzg3ODAw=="));
  EXPECT_THAT(ParentNames(job, "R3_1_2_1"), ElementsAre("M1", "M2"));
  EXPECT_THAT(ParentNames(job, "task_Nzg3ODAw=="), ElementsAre());
}

TEST(AlibabaReaderTest, UnusableJobsAreSkippedAndCountedPerReason) {
  const AlibabaConversion out = Convert(
      "ok,M1,1,Terminated,0,1,,100,0.2,\n"
      "running,M1,1,Terminated,0,1,,100,0.2,\n"
      "running,M2_1,1,Running,0,1,,100,0.2,\n"
      "badname,M1,1,Terminated,0,1,,100,0.2,\n"
      "badname,R2_1_Stg8,1,Terminated,0,1,,100,0.2,\n"
      "nocpu,M1,1,Terminated,0,1,,nan,nan,\n"
      "noinstances,M1,,Terminated,0,1,,100,0.2,\n"
      "dup,M1,1,Terminated,0,1,,100,0.2,\n"
      "dup,R1,1,Terminated,0,1,,100,0.2,\n"
      "orphan,M1,1,Terminated,0,1,,100,0.2,\n"
      "orphan,R3_1_2,1,Terminated,0,1,,100,0.2,\n"
      "selfloop,M1_1,1,Terminated,0,1,,100,0.2,\n"
      "cycle,M1,1,Terminated,0,1,,100,0.2,\n"
      "cycle,M2_1_3,1,Terminated,0,1,,100,0.2,\n"
      "cycle,R3_2,1,Terminated,0,1,,100,0.2,\n"
      "huge,M1,1,Terminated,0,1,,10000,0.2,\n");
  const AlibabaReport& r = out.report;
  EXPECT_EQ(r.rows, 16u);
  EXPECT_EQ(r.jobs, 10u);
  EXPECT_EQ(r.usable, 1u);
  EXPECT_EQ(r.written, 1u);
  EXPECT_EQ(r.TotalSkipped(), 9u);
  auto skipped = [&](AlibabaSkip why) { return r.skipped[static_cast<int>(why)]; };
  auto example = [&](AlibabaSkip why) { return r.example[static_cast<int>(why)]; };
  EXPECT_EQ(skipped(AlibabaSkip::kNotTerminated), 1u);
  EXPECT_EQ(example(AlibabaSkip::kNotTerminated), "running (line 4)");
  EXPECT_EQ(skipped(AlibabaSkip::kBadName), 1u);
  EXPECT_EQ(example(AlibabaSkip::kBadName), "badname (line 6)");
  EXPECT_EQ(skipped(AlibabaSkip::kBadValue), 2u);
  EXPECT_EQ(skipped(AlibabaSkip::kDuplicateTask), 1u);
  EXPECT_EQ(skipped(AlibabaSkip::kUnknownParent), 1u);
  EXPECT_EQ(example(AlibabaSkip::kUnknownParent), "orphan (line 12)");
  EXPECT_EQ(skipped(AlibabaSkip::kCycle), 2u);  // a task its own parent, and 2 -> 3 -> 2
  EXPECT_EQ(example(AlibabaSkip::kCycle), "selfloop (line 13)");
  EXPECT_EQ(skipped(AlibabaSkip::kTooLarge), 1u);  // 100 cores > 96
  ASSERT_EQ(out.workload.jobs.size(), 1u);
  EXPECT_EQ(out.workload.jobs[0].name, "ok");
  EXPECT_THAT(r.Summary(), HasSubstr("16 rows, 10 jobs: 9 skipped (1 with a task not Terminated, e.g. running (line 4);"));
  EXPECT_THAT(r.Summary(), HasSubstr("2 with a dependency cycle, e.g. selfloop (line 13)"));
  EXPECT_THAT(r.Summary(), HasSubstr("1 usable, 0 too small, 1 written"));
}

TEST(AlibabaReaderTest, MachineSizeDecidesWhatIsTooLarge) {
  AlibabaOptions small;
  small.machines = 3;
  small.machine_cpu = 1;
  small.machine_mem = 10;
  const AlibabaConversion out = Convert(
      "fits,M1,1,Terminated,0,1,,100,10,\n"
      "cpu,M1,1,Terminated,0,1,,150,1,\n"
      "mem,M1,1,Terminated,0,1,,50,10.5,\n",
      small);
  EXPECT_EQ(out.report.skipped[static_cast<int>(AlibabaSkip::kTooLarge)], 2u);
  ASSERT_EQ(out.workload.jobs.size(), 1u);
  EXPECT_EQ(out.workload.cluster.size(), 3u);
  EXPECT_DOUBLE_EQ(out.workload.cluster.machine(MachineId(2)).capacity.units(kCpu), 1.0);
}

TEST(AlibabaReaderTest, MinTasksAndMinStagesLeaveOutSmallJobs) {
  const std::string rows =
      "one,M1,1,Terminated,0,1,,100,0.2,\n"
      "wide,M1,50,Terminated,0,1,,100,0.2,\n"
      "deep,M1,1,Terminated,0,1,,100,0.2,\n"
      "deep,M2_1,1,Terminated,0,1,,100,0.2,\n"
      "deep,M3_2,1,Terminated,0,1,,100,0.2,\n";
  AlibabaOptions o;
  o.min_tasks = 3;
  AlibabaConversion out = Convert(rows, o);
  EXPECT_EQ(out.report.usable, 3u);
  EXPECT_EQ(out.report.too_small, 1u);
  EXPECT_EQ(out.workload.jobs.size(), 2u);
  o.min_stages = 2;
  out = Convert(rows, o);
  ASSERT_EQ(out.workload.jobs.size(), 1u);
  EXPECT_EQ(out.workload.jobs[0].name, "deep");
}

std::set<std::string> SampledNames(const std::string& rows, uint64_t jobs, uint64_t seed) {
  AlibabaOptions o;
  o.max_jobs = jobs;
  o.seed = seed;
  const AlibabaConversion out = Convert(rows, o);
  std::set<std::string> names;
  TimeUs last = 0;
  for (const Job& j : out.workload.jobs) {
    names.insert(j.name);
    EXPECT_GE(j.arrival_us, last);  // still in arrival order
    last = j.arrival_us;
  }
  EXPECT_EQ(out.report.written, names.size());
  return names;
}

TEST(AlibabaReaderTest, SampleIsUniformlyDrawnAndDeterministicPerSeed) {
  std::string rows;
  std::set<std::string> all;
  for (int j = 0; j < 20; ++j) {
    rows += fmt::format("j{},M1,1,Terminated,{},{},,100,0.2,\n", j, 1000 - j * 10, 1001 - j * 10);
    all.insert(fmt::format("j{}", j));
  }
  const std::set<std::string> a = SampledNames(rows, 5, 7);
  EXPECT_EQ(a.size(), 5u);
  for (const std::string& name : a) EXPECT_TRUE(all.count(name)) << name;
  EXPECT_EQ(SampledNames(rows, 5, 7), a);  // same seed, same sample
  std::set<std::set<std::string>> samples;
  for (uint64_t seed = 1; seed <= 10; ++seed) samples.insert(SampledNames(rows, 5, seed));
  EXPECT_GT(samples.size(), 5u);  // seeds pick different jobs
  EXPECT_EQ(SampledNames(rows, 0, 1), all);   // 0: every job
  EXPECT_EQ(SampledNames(rows, 99, 1), all);  // more than there are: every job
}

TEST(AlibabaReaderTest, NothingToWriteOrBadOptionsAreErrors) {
  const auto none = ConvertAlibabaRows(Rows("j,M1,1,Failed,0,1,,100,0.2,\n"), {});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(none.status()));
  EXPECT_THAT(std::string(StatusMessage(none.status())), HasSubstr("no job to write: 1 rows, 1 jobs: 1 skipped"));
  AlibabaOptions bad;
  bad.machines = 0;
  EXPECT_FALSE(ConvertAlibabaRows(Rows("j,M1,1,Terminated,0,1,,100,0.2,\n"), bad).ok());
  bad = {};
  bad.machine_cpu = 0;
  EXPECT_FALSE(ConvertAlibabaRows(Rows("j,M1,1,Terminated,0,1,,100,0.2,\n"), bad).ok());
}

}  // namespace
}  // namespace weft
