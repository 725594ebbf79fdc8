// File: tests/trace/stage_dag_readers_test.cc
//
// The readers of the TPC-H stage-DAG profiles (decima-tpch, tpch-cloudlab):
// on the files in ../shared/data (counts from their SOURCES.md) and on small
// files made to their format for each rule and refusal.
#include "gmock/gmock.h"
#include "tests/trace/trace_test_util.h"
#include "trace/dag_job.h"

namespace weft {
namespace {

using testutil::TraceFixture;
using ::testing::HasSubstr;
using DecimaTpchTest = TraceFixture;
using TpchCloudlabTest = TraceFixture;

TEST(DecimaTpchDataTest, CountsMatchSources) {
  SKIP_WITHOUT_DATA("decima-tpch/decima_tpch_stages.csv");
  const auto read = TraceFixture::Read("decima-tpch:" + testutil::SharedData("decima-tpch"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  // SOURCES.md: 154 DAGs (7 sizes x 22 queries), 1,414 stages, 1,656,575 duration samples (+ two headers).
  EXPECT_EQ(read.workload->jobs.size(), 154u);
  EXPECT_EQ(read.workload->NumStages(), 1414u);
  EXPECT_EQ(read.report.rows, 1414u + 1656575u + 2u);
  EXPECT_EQ(read.report.noted("stages with no duration sample, run at their mean"), 0u);
  EXPECT_EQ(read.workload->jobs[0].name, "q1-2g");
  EXPECT_EQ(read.workload->jobs[0].stages[0].num_tasks, 12u);  // the SOURCES.md example row
}

const char* kDecimaStages =
    "input_size,query,stage,num_tasks,children,mean_task_ms,n_duration_samples,executor_counts_profiled\n"
    "2g,1,0,3,1 2,100.0,2,2\n"
    "2g,1,1,2,2,50.0,0,2\n"
    "2g,1,2,1,,10.0,1,2\n";
const char* kDecimaDurations =
    "input_size,query,stage,num_executors,wave,duration_ms\n"
    "2g,1,0,2,first_wave,90\n2g,1,0,2,rest_wave,110\n2g,1,2,2,first_wave,10\n";

TEST_F(DecimaTpchTest, DecimaDrawsDurationsBySeedAndFallsBackToTheMean) {
  Write("d/decima_tpch_stages.csv", kDecimaStages);
  WriteGz("d/decima_tpch_task_durations.csv.gz", kDecimaDurations);
  TraceOptions o;
  const auto read = Read("decima-tpch:" + Path("d"), o);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  const Job& job = read.workload->jobs[0];
  ASSERT_EQ(job.stages.size(), 3u);
  for (uint32_t t = 0; t < 3; ++t) {
    const TimeUs d = job.stages[0].TaskDuration(t);
    EXPECT_TRUE(d == 90000 || d == 110000) << d;
  }
  EXPECT_EQ(job.stages[1].TaskDuration(0), 50000);  // no sample: the mean
  EXPECT_EQ(read.report.noted("stages with no duration sample, run at their mean"), 1u);
  EXPECT_EQ(job.stages[2].parents.size(), 2u);
  // The same seed draws the same durations; some other seed draws others.
  EXPECT_EQ(Read("decima-tpch:" + Path("d"), o).workload->jobs[0].stages[0].durations_us, job.stages[0].durations_us);
  bool differs = false;
  for (o.seed = 2; o.seed < 20 && !differs; ++o.seed) {
    differs = Read("decima-tpch:" + Path("d"), o).workload->jobs[0].stages[0].durations_us != job.stages[0].durations_us;
  }
  EXPECT_TRUE(differs);
}

TEST_F(DecimaTpchTest, DecimaRefusesAWrongHeader) {
  Write("d/decima_tpch_stages.csv", "query,input_size,stage\n1,2g,0\n");
  EXPECT_THAT(Read("decima-tpch:" + Path("d")).Error(),
              HasSubstr("decima_tpch_stages.csv: row 1: not a decima-tpch stages file: the header must be input_size,"));
}

TEST(TpchCloudlabDataTest, CountsMatchSources) {
  SKIP_WITHOUT_DATA("tpch-spark-cloudlab-erdos/tpch_cloudlab_stages.csv");
  const auto read =
      TraceFixture::Read("tpch-cloudlab:" + testutil::SharedData("tpch-spark-cloudlab-erdos/tpch_cloudlab_stages.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  // SOURCES.md: 352 configs (22 queries x 4 sizes x 4 core caps), 2,736 stage rows.
  EXPECT_EQ(read.workload->jobs.size(), 352u);
  EXPECT_EQ(read.workload->NumStages(), 2736u);
  EXPECT_EQ(read.workload->jobs[0].name, "Q1-50g-50");
  EXPECT_EQ(read.workload->jobs[0].stages[0].num_tasks, 295u);
  EXPECT_EQ(read.workload->jobs[0].stages[0].duration_us, 9757824);
}

const char* kCloudlabHeader =
    "query,input_size,spark_max_cores,stage_id,num_tasks,avg_task_runtime_ms,children,stage_name\n";

TEST_F(TpchCloudlabTest, TpchCloudlabSkipsBrokenDagsAndRaisesZeroDurations) {
  Write("c.csv", std::string(kCloudlabHeader) +
                     "Q1,50g,50,0,4,0.0,1,a\nQ1,50g,50,1,1,2.5,,b\n"    // fine; stage 0 at 0 ms
                     "Q2,50g,50,0,1,1,1,a\nQ2,50g,50,1,1,1,0,b\n"       // a cycle
                     "Q3,50g,50,0,1,1,7,a\n");                          // child 7 is missing
  const auto read = Read("tpch-cloudlab:" + Path("c.csv"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 1u);
  EXPECT_EQ(read.workload->jobs[0].stages[0].duration_us, 1000);
  EXPECT_EQ(read.report.noted("stages shorter than 1 ms raised to 1 ms"), 1u);
  EXPECT_EQ(read.report.skipped(kSkipCycle), 1u);
  EXPECT_EQ(read.report.skipped(kSkipUnknownChild), 1u);
}

TEST_F(TpchCloudlabTest, TpchCloudlabRefusesScatteredJobsAndBadColumns) {
  Write("c.csv", std::string(kCloudlabHeader) + "Q1,50g,50,0,4,1,,a\nQ2,50g,50,0,1,1,,a\nQ1,50g,50,1,1,1,,b\n");
  EXPECT_THAT(Read("tpch-cloudlab:" + Path("c.csv")).Error(),
              HasSubstr("c.csv: row 4: job Q1-50g-50 continues here after other jobs"));
  Write("c.csv", std::string(kCloudlabHeader) + "Q1,50g,50,0,many,1,,a\n");
  EXPECT_THAT(Read("tpch-cloudlab:" + Path("c.csv")).Error(),
              HasSubstr("c.csv: row 2, column 5 (num_tasks): \"many\" is not a whole number"));
  Write("c.csv", std::string(kCloudlabHeader) + "Q1,50g,50,0,1,1,\n");
  EXPECT_THAT(Read("tpch-cloudlab:" + Path("c.csv")).Error(),
              HasSubstr("c.csv: row 2: 7 columns, but a tpch-cloudlab stages row has 8"));
}

}  // namespace
}  // namespace weft
