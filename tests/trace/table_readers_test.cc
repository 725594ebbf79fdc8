// File: tests/trace/table_readers_test.cc
//
// The readers of one-table traces (swim, alibaba-2017, alibaba-2018 as a
// trace format): on the files in ../shared/data (counts from their
// SOURCES.md) and on small files made to their format.
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "tests/trace/trace_test_util.h"

namespace weft {
namespace {

using testutil::StageNamed;
using testutil::TraceFixture;
using ::testing::HasSubstr;
using SwimTest = TraceFixture;
using Alibaba2017Test = TraceFixture;

TEST(SwimDataTest, EveryRowIsAJob) {
  SKIP_WITHOUT_DATA("swim-facebook-hadoop/FB-2009_samples_24_times_1hr_0.tsv");
  const std::string dir = testutil::SharedData("swim-facebook-hadoop/");
  // SOURCES.md: FB-2009 _0 has 5,894 jobs; withInputPaths 25,428 (rows of 9 columns, two empty).
  auto read = TraceFixture::Read("swim:" + dir + "FB-2009_samples_24_times_1hr_0.tsv");
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_EQ(read.workload->jobs.size(), 5894u);
  read = TraceFixture::Read("swim:" + dir + "FB-2010_samples_24_times_1hr_withInputPaths_0.tsv");
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_EQ(read.workload->jobs.size(), 25428u);
}

TEST_F(SwimTest, SwimDerivesTasksAndDurationsFromBytes) {
  // 300 MiB input -> 3 maps of 100 MiB (1 s each at 100 MiB/s); 1.5 GiB shuffle + 0.5 GiB output -> 2 reduces
  // of 1 GiB (10.24 s each); a job without shuffle is map only.
  const double mib = 1 << 20;
  Write("w.tsv", fmt::format("job0\t9\t9\t{:.0f}\t{:.0f}\t{:.0f}\njob1\t18\t9\t1762\t0\t14347\n", 300 * mib,
                             1536 * mib, 512 * mib));
  const auto read = Read("swim:" + Path("w.tsv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  const Job& j0 = read.workload->jobs[0];
  EXPECT_EQ(j0.arrival_us, 9000000);
  ASSERT_EQ(j0.stages.size(), 2u);
  EXPECT_EQ(j0.stages[0].num_tasks, 3u);
  EXPECT_EQ(j0.stages[0].duration_us, 1000000);
  EXPECT_EQ(j0.stages[1].num_tasks, 2u);
  EXPECT_EQ(j0.stages[1].duration_us, 10240000);
  EXPECT_EQ(j0.stages[1].parents.size(), 1u);
  const Job& j1 = read.workload->jobs[1];
  ASSERT_EQ(j1.stages.size(), 1u);
  EXPECT_EQ(j1.stages[0].duration_us, 1000);  // tiny: the 1 ms floor
  EXPECT_EQ(read.report.noted("jobs without a shuffle (map only)"), 1u);
}

TEST_F(SwimTest, SwimMergesSeveralFilesBySubmitTime) {
  // Each SWIM file starts at 0: the rows of both are passed in submit order
  // (ties: the file given first), so a replay can stream them.
  Write("a.tsv", "job0\t0\t0\t1\t0\t1\njob1\t20\t20\t1\t0\t1\njob2\t30\t10\t1\t0\t1\n");
  Write("b.tsv", "job0\t10\t10\t1\t0\t1\njob1\t20\t10\t1\t0\t1\n");
  const auto read = Read("swim:" + Path("a.tsv") + "," + Path("b.tsv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  std::vector<std::string> names;
  for (const Job& j : read.workload->jobs) names.push_back(j.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a/job0", "b/job0", "a/job1", "b/job1", "a/job2"}));
  EXPECT_EQ(read.report.rows, 5u);
}

TEST_F(SwimTest, SwimRefusesARowGoingBackInTime) {
  // The current row's submit time is the replay's watermark: a row before
  // the one above it could not be replayed in its turn.
  Write("w.tsv", "job0\t5\t5\t1\t0\t1\njob1\t9\t4\t1\t0\t1\njob2\t7\t0\t1\t0\t1\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(),
              HasSubstr("w.tsv: row 3, column 2 (submit_time_s): 7 s is before the row above's 9 s: swim rows must be "
                        "in submit order"));
}

TEST_F(SwimTest, SwimRefusesHeaderAndBadRows) {
  Write("w.tsv", "job_id\tsubmit\tgap\tin\tshuffle\tout\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(),
              HasSubstr("w.tsv: row 1, column 2 (submit_time_s): \"submit\" is not a number: swim files have no header"));
  Write("w.tsv", "job0\t9\t9\t100\t-5\t3\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(), HasSubstr("w.tsv: row 1, column 5 (shuffle_bytes): is negative"));
  // Found by fuzzing (fuzz/corpus/trace_swim/huge_bytes): a task count no integer holds.
  Write("w.tsv", "job0\t1\t1\t2e90\t0\t1\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(),
              HasSubstr("w.tsv: row 1, column 4 (map_input_bytes): is over 10 PB (1e16 bytes), the model's limit"));
  Write("w.tsv", "job0\t1\t1\t1\t1\t1e300\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(), HasSubstr("column 6 (reduce_output_bytes): is over 10 PB"));
  Write("w.tsv", "job0\t9\t9\t100\n");
  EXPECT_THAT(Read("swim:" + Path("w.tsv")).Error(), HasSubstr("w.tsv: row 1: 4 columns, but a swim row has 6"));
}

TEST(Alibaba2017DataTest, CountsMatchSources) {
  SKIP_WITHOUT_DATA("alibaba-v2017-batch-task/batch_task.csv");
  const auto read = TraceFixture::Read("alibaba-2017:" + testutil::SharedData("alibaba-v2017-batch-task/batch_task.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  // SOURCES.md: 80,553 task rows (+ header); Terminated 67,013, Waiting 8,847, Running 3,567, Failed 1,126.
  EXPECT_EQ(read.report.rows, 80554u);
  EXPECT_EQ(read.report.skipped("tasks not Terminated"), 8847u + 3567u + 1126u);
  // Of the Terminated rows, 10 lack a request; the rest are the stages written.
  EXPECT_EQ(read.workload->NumStages() + read.report.skipped("tasks without a cpu or memory request"), 67013u);
  EXPECT_LE(read.workload->jobs.size(), 12951u);
}

TEST_F(Alibaba2017Test, Alibaba2017KeepsTerminatedTasksAsStages) {
  Write("b.csv", "6459,6524,3,4,15,Terminated,50,0.0079\n6457,6533,3,5,1,Terminated,100,0.0044\n"
                 "6036,6046,4,7,393,Waiting,,\n-10,5,8,1,2,Terminated,50,0.001\n");
  const auto read = Read("alibaba-2017:" + Path("b.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 2u);
  // Jobs are passed in arrival order: job 8 (created before the trace start) first.
  EXPECT_EQ(read.workload->jobs[0].name, "8");
  const Job& j3 = read.workload->jobs[1];
  EXPECT_EQ(j3.name, "3");
  EXPECT_EQ(j3.arrival_us, 6457000000);
  const Stage* t4 = StageNamed(j3, "t4");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->num_tasks, 15u);
  EXPECT_EQ(t4->duration_us, 65000000);
  EXPECT_DOUBLE_EQ(t4->demand.units(kCpu), 0.5);
  EXPECT_EQ(read.workload->jobs[0].arrival_us, 0);  // created before the trace start
  EXPECT_EQ(read.report.skipped("tasks not Terminated"), 1u);
}

TEST_F(Alibaba2017Test, Alibaba2017KeepsTheEarliestCreatedRowOfATaskListedTwice) {
  Write("b.csv", "50,60,3,4,2,Terminated,50,0.1\n40,45,3,4,9,Terminated,50,0.1\n70,80,3,5,1,Terminated,50,0.1\n");
  const auto read = Read("alibaba-2017:" + Path("b.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  const Job& job = read.workload->jobs[0];
  EXPECT_EQ(job.arrival_us, 40000000);
  const Stage* t4 = StageNamed(job, "t4");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->num_tasks, 9u);
  EXPECT_EQ(read.report.skipped("tasks listed twice (the later row)"), 1u);
}

TEST_F(Alibaba2017Test, Alibaba2017RefusesOtherLayouts) {
  Write("b.csv", "6459,6524,3,4,15,Terminated,50\n");
  EXPECT_THAT(Read("alibaba-2017:" + Path("b.csv")).Error(),
              HasSubstr("b.csv: row 1: 7 columns, but a alibaba-2017 batch_task row has 8"));
  Write("b.csv", "6459,6524,3,four,15,Terminated,50,0.1\n");
  EXPECT_THAT(Read("alibaba-2017:" + Path("b.csv")).Error(),
              HasSubstr("b.csv: row 1, column 4 (task_id): \"four\" is not a whole number"));
}

// batch_instance of v2017, made to its schema (alibaba_v2017_schema.upstream.csv;
// no real batch_instance rows are in ../shared/data): start_timestamp,
// end_timestamp, job_id, task_id, machine_id, status, seq_no, total_seq_no,
// real_cpu_max, real_cpu_avg, real_mem_max, real_mem_avg.
std::string Instance2017(const std::string& job, const std::string& task, int start, int end,
                         const std::string& status = "Terminated", const std::string& cpu = "0.3",
                         const std::string& mem = "0.002") {
  return fmt::format("{},{},{},{},m7,{},1,1,0.9,{},0.004,{}\n", start, end, job, task, status, cpu, mem);
}

// Job 3: task 4 has 2 instances, task 5 has 3; job 9: task 1 has 1 instance.
constexpr char kBatchTask2017[] = "100,160,3,4,2,Terminated,50,0.01\n100,170,3,5,3,Terminated,100,0.01\n"
                                  "300,305,9,1,1,Terminated,100,0.01\n";

TEST_F(Alibaba2017Test, Alibaba2017BatchInstanceGivesPerInstanceDurations) {
  const std::string task = Write("batch_task.csv", kBatchTask2017);
  const std::string inst = Write(
      "batch_instance.csv",
      // Task 4: an instance failed once, then both finished: their own durations.
      Instance2017("3", "4", 100, 130, "Failed") + Instance2017("3", "4", 131, 141) + Instance2017("3", "4", 100, 150) +
          // Task 5: 2 of 3 instances have rows (one Interrupted, a backup copy): the mean of 10 s and 30 s.
          Instance2017("3", "5", 100, 110) + Instance2017("3", "5", 120, 150, "Terminated", "0.8", "") +
          Instance2017("3", "5", 120, 121, "Interrupted") +
          // Task 1 of job 9: started before the trace (start 0): no duration from it.
          Instance2017("9", "1", 0, 302) +
          // Rows without ids (a known gap of the trace), and of a job that is not kept.
          Instance2017("", "", 100, 101) + Instance2017("77", "1", 100, 101));
  const auto read = Read("alibaba-2017:" + task + "," + inst);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 2u);
  const Job& job = read.workload->jobs[0];
  const Stage* t4 = StageNamed(job, "t4");
  const Stage* t5 = StageNamed(job, "t5");
  ASSERT_TRUE(t4 != nullptr && t5 != nullptr);
  EXPECT_EQ(t4->durations_us, (std::vector<TimeUs>{10000000, 50000000}));
  EXPECT_NEAR(t4->usage.units(kCpu), 0.3, 1e-9);  // real_cpu_avg is in cores; plan_cpu 50 = 0.5 core
  EXPECT_NEAR(t4->usage.units(kMem), 0.002, 1e-9);
  EXPECT_TRUE(t5->durations_us.empty());
  EXPECT_EQ(t5->duration_us, 20000000);
  EXPECT_NEAR(t5->usage.units(kCpu), 0.3, 1e-9);  // the row without memory is left out of the usage
  const Stage* t1 = StageNamed(read.workload->jobs[1], "t1");
  ASSERT_NE(t1, nullptr);
  EXPECT_EQ(t1->duration_us, 5000000);  // batch_task's span: its only instance row has no start
  EXPECT_EQ(read.report.skipped("batch_instance rows not Terminated"), 2u);
  EXPECT_EQ(read.report.skipped("batch_instance rows without a start before their end"), 1u);
  EXPECT_EQ(read.report.skipped("batch_instance rows without a job or task id"), 1u);
  EXPECT_EQ(read.report.skipped("batch_instance rows of no kept job"), 1u);
  EXPECT_EQ(read.report.noted("stages whose Terminated batch_instance rows differ in number from instance_num, run at "
                              "their mean"),
            1u);
  EXPECT_EQ(read.report.rows, 3u + 9u);

  // In batches of a job each (one pass over batch_instance per batch), the
  // same jobs, each row counted once.
  TraceOptions small;
  small.max_held_rows = 1;
  const auto batched = Read("alibaba-2017:" + task + "," + inst, small);
  ASSERT_TRUE(batched.workload.ok()) << batched.Error();
  EXPECT_EQ(StageNamed(batched.workload->jobs[0], "t4")->durations_us, t4->durations_us);
  EXPECT_EQ(batched.report.rows, read.report.rows);
  for (const char* reason : {"batch_instance rows not Terminated", "batch_instance rows without a job or task id",
                             "batch_instance rows of no kept job"}) {
    EXPECT_EQ(batched.report.skipped(reason), read.report.skipped(reason)) << reason;
  }
}

TEST_F(Alibaba2017Test, Alibaba2017RefusesABatchInstanceOfAnotherLayout) {
  const std::string task = Write("batch_task.csv", kBatchTask2017);
  const std::string spec = "alibaba-2017:" + task + "," + Path("batch_instance.csv");
  Write("batch_instance.csv", "100,130,3,4,m7,Terminated,1\n");
  EXPECT_THAT(Read(spec).Error(),
              HasSubstr("batch_instance.csv: row 1: 7 columns, but a alibaba-2017 batch_instance row has 12"));
  Write("batch_instance.csv", "start_timestamp,end_timestamp,job_id,task_id,machine_id,status,seq_no,total_seq_no,"
                              "real_cpu_max,real_cpu_avg,real_mem_max,real_mem_avg\n" +
                                  Instance2017("3", "4", 131, 141));
  EXPECT_THAT(Read(spec).Error(),
              HasSubstr("batch_instance.csv: row 1, column 1 (first): \"start_timestamp\" is not a number: "
                        "alibaba-2017 batch_instance files have no header row"));
  Write("batch_instance.csv", Instance2017("3", "four", 131, 141));
  EXPECT_THAT(Read(spec).Error(), HasSubstr("batch_instance.csv: row 1, column 4 (task_id): \"four\" is not a whole number"));
  Write("batch_instance.csv", Instance2017("3", "4", 131, 141) + "131,x,3,4,m7,Terminated,1,1,0.9,0.3,0.004,0.002\n");
  EXPECT_THAT(Read(spec).Error(), HasSubstr("row 2, column 2 (end_timestamp): \"x\" is not a whole number"));
  // batch_instance alone is no trace.
  EXPECT_THAT(Read("alibaba-2017:" + Path("batch_instance.csv")).Error(),
              HasSubstr("alibaba-2017: give batch_task files (and optionally batch_instance files)"));
}

TEST(Alibaba2018TraceDataTest, MediumFilteredReplays) {
  SKIP_WITHOUT_DATA("alibaba-v2018-dags-erdos/medium_filtered.csv");
  const auto read =
      TraceFixture::Read("alibaba-2018:" + testutil::SharedData("alibaba-v2018-dags-erdos/medium_filtered.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  // SOURCES.md: 3,690 jobs, 22,409 task rows, all usable.
  EXPECT_EQ(read.workload->jobs.size(), 3690u);
  EXPECT_EQ(read.workload->NumStages(), 22409u);
  EXPECT_EQ(read.report.rows, 22409u);
  EXPECT_EQ(read.workload->cluster.size(), 4034u);
}

using Alibaba2018Test = TraceFixture;

// batch_task (native): task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem.
constexpr char kBatchTask[] = "M1,2,j_1,1,Terminated,100,110,100,0.5\nR2_1,3,j_1,1,Terminated,110,130,50,0.5\n";

// A batch_instance row: instance_name,task_name,job_name,task_type,status,start_time,end_time,machine_id,seq_no,
// total_seq_no,cpu_avg,cpu_max,mem_avg,mem_max.
std::string Instance(const std::string& task, int start, int end, const std::string& status = "Terminated",
                     const std::string& cpu = "40", const std::string& mem = "0.2") {
  return "i," + task + ",j_1,1," + status + "," + std::to_string(start) + "," + std::to_string(end) + ",m_1,1,1," +
         cpu + ",90," + mem + ",0.4\n";
}

TEST_F(Alibaba2018Test, BatchInstanceGivesPerInstanceDurationsAndUsage) {
  const std::string task = Write("batch_task.csv", kBatchTask);
  // M1: both instances Terminated -> their own durations; R2: 2 of 3 (one Failed) -> the mean.
  const std::string inst = Write("batch_instance.csv", Instance("M1", 100, 104) + Instance("M1", 100, 109, "Terminated", "60", "-1") +
                                                           Instance("R2_1", 110, 120) + Instance("R2_1", 110, 130) +
                                                           Instance("R2_1", 110, 111, "Failed"));
  const auto read = Read("alibaba-2018:" + task + "," + inst);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  const Job& job = read.workload->jobs[0];
  const Stage* m1 = StageNamed(job, "M1");
  const Stage* r2 = StageNamed(job, "R2_1");
  ASSERT_TRUE(m1 != nullptr && r2 != nullptr);
  EXPECT_EQ(m1->durations_us, (std::vector<TimeUs>{4000000, 9000000}));
  EXPECT_NEAR(m1->usage.units(kCpu), 0.4, 1e-6);  // the -1 memory row is left out of the mean
  EXPECT_TRUE(r2->durations_us.empty());
  EXPECT_EQ(r2->duration_us, 15000000);
  EXPECT_EQ(read.report.skipped("batch_instance rows not Terminated"), 1u);
  EXPECT_EQ(read.report.noted("stages whose Terminated batch_instance rows differ in number from instance_num, run at "
                              "their mean"),
            1u);
}

TEST_F(Alibaba2018Test, RefusesABatchInstanceOfAnotherLayout) {
  const std::string task = Write("batch_task.csv", kBatchTask);
  const std::string inst = Write("batch_instance.csv", "i,M1,j_1,1,Terminated,100,104\n");
  EXPECT_THAT(Read("alibaba-2018:" + task + "," + inst).Error(),
              HasSubstr("batch_instance.csv: row 1: 7 columns, but a alibaba-2018 batch_instance row has 14"));
}

}  // namespace
}  // namespace weft
