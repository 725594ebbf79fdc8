// File: tests/trace/google_2019_test.cc
//
// The google-2019 reader on small files made to the schema in
// ../shared/data/google-2019-schema (clusterdata_trace_format_v3.proto): no
// rows of the real trace are available, so these files are all it is tested
// on. int64 fields are written as strings in places, as BigQuery exports them.
#include "trace/google_2019.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "tests/trace/trace_test_util.h"

namespace weft {
namespace {

using testutil::TraceFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Google2019Test : public TraceFixture {
 protected:
  // An instance event; types: 0 SUBMIT, 3 SCHEDULE, 6 FINISH, 7 KILL.
  static std::string Instance(int64_t time, int type, int64_t collection, int index, double cpus = 0.1,
                              int collection_type = 0) {
    return "{\"time\": \"" + std::to_string(time) + "\", \"type\": " + std::to_string(type) +
           ", \"collection_id\": \"" + std::to_string(collection) + "\", \"instance_index\": " +
           std::to_string(index) + ", \"collection_type\": " + std::to_string(collection_type) +
           ", \"resource_request\": {\"cpus\": " + std::to_string(cpus) + ", \"memory\": 0.05}}\n";
  }
  static std::string Run(int64_t collection, int index, int64_t submit, int64_t start, int64_t end, double cpus = 0.1) {
    return Instance(submit, 0, collection, index, cpus) + Instance(start, 3, collection, index, cpus) +
           Instance(end, 6, collection, index, cpus);
  }
};

TEST_F(Google2019Test, CollectionsStartingAfterOthersBecomeOneWorkflow) {
  WriteGz("t/collection_events-000000000000.json.gz",
          "{\"time\": \"0\", \"type\": 0, \"collection_id\": \"100\", \"user\": \"u1\", \"priority\": 200}\n"
          "{\"time\": \"0\", \"type\": 0, \"collection_id\": \"200\", \"user\": \"u1\", "
          "\"start_after_collection_ids\": [\"100\"]}\n"
          "{\"time\": \"0\", \"type\": 0, \"collection_id\": \"300\", \"user\": \"u2\"}\n"
          "{\"time\": \"0\", \"type\": 0, \"collection_id\": \"400\", \"collection_type\": 1}\n");
  WriteGz("t/instance_events-000000000000.json.gz",
          Run(100, 0, 1000000, 2000000, 5000000) + Run(100, 1, 1000000, 2000000, 6000000) +
              Run(200, 0, 1500000, 7000000, 9000000) + Run(300, 0, 3000000, 3000000, 4000000) +
              Instance(0, 0, 300, 1) + Instance(10, 7, 300, 1) + Instance(5, 0, 400, 0, 0.1, 1));
  const auto read = Read("google-2019:" + Path("t"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  const Workload& w = *read.workload;
  ASSERT_EQ(w.jobs.size(), 2u);
  const Job& wf = w.jobs[0];
  EXPECT_EQ(wf.name, "wf100");
  EXPECT_EQ(wf.arrival_us, 1000000);
  EXPECT_EQ(wf.priority, 200);
  ASSERT_EQ(wf.stages.size(), 2u);
  EXPECT_EQ(wf.stages[0].name, "c100-s0");
  EXPECT_EQ(wf.stages[1].name, "c200-s0");
  ASSERT_EQ(wf.stages[1].parents.size(), 1u);
  EXPECT_EQ(wf.stages[1].parents[0].stage, 0u);
  EXPECT_EQ(wf.stages[0].TaskDuration(1), 4000000);
  EXPECT_EQ(w.jobs[1].name, "300");
  EXPECT_EQ(w.users, (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(read.report.skipped("instance events of alloc sets (not work)"), 1u);
  EXPECT_EQ(read.report.skipped("tasks not finished in the files (killed, failed, evicted, lost or running)"), 1u);
  EXPECT_EQ(w.cluster.size(), 12000u);
}

TEST_F(Google2019Test, MachineEventsAndUsage) {
  Write("t/machine_events.json", "{\"time\": 0, \"machine_id\": 1, \"type\": 1, \"capacity\": {\"cpus\": 0.5, \"memory\": 0.5}}\n"
                                 "{\"time\": 0, \"machine_id\": 2, \"type\": 1, \"capacity\": {\"cpus\": 0.5, \"memory\": 0.5}}\n");
  Write("t/instance_events.json", Run(7, 0, 0, 0, 2000000));
  Write("t/instance_usage.json", "{\"start_time\": 0, \"end_time\": 2000000, \"collection_id\": 7, \"instance_index\": 0, "
                                 "\"average_usage\": {\"cpus\": 0.05, \"memory\": 0.01}}\n");
  const auto read = Read("google-2019:" + Path("t"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_EQ(read.workload->cluster.size(), 2u);
  EXPECT_NEAR(read.workload->jobs[0].stages[0].usage.units(kCpu), 0.05, 1e-6);
}

// --stages per-job: a collection whose instances differ in demand stays one
// stage (named c<id>-s0 inside a workflow), each instance with its own demand.
TEST_F(Google2019Test, WithAStagePerJobInstancesKeepTheirOwnDemand) {
  Write("t/instance_events.json", Run(7, 0, 0, 0, 2000000, 0.1) + Run(7, 1, 0, 0, 3000000, 0.3) +
                                      Run(7, 2, 0, 0, 2000000, 0.1));
  TraceOptions options;
  options.stage_per_job = true;
  const auto read = Read("google-2019:" + Path("t"), options);
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs[0].stages.size(), 1u);
  const Stage& s = read.workload->jobs[0].stages[0];
  ASSERT_EQ(s.num_tasks, 3u);
  EXPECT_NEAR(s.demand.units(kCpu), 0.3, 1e-6);
  EXPECT_NEAR(s.TaskDemand(0).units(kCpu), 0.1, 1e-6);
  EXPECT_NEAR(s.TaskDemand(1).units(kCpu), 0.3, 1e-6);
  EXPECT_NEAR(s.TaskDemand(2).units(kCpu), 0.1, 1e-6);
  EXPECT_EQ(s.TaskDuration(1), 3000000);
  // By demand (the default), the same collection is two stages.
  EXPECT_EQ(Read("google-2019:" + Path("t")).workload->jobs[0].stages.size(), 2u);
}

// The reader reads instance_events twice and passes each workflow once the
// stream is past its kept instances' last row: a request changed after an
// instance's FINISH is its demand, whatever rows come between.
TEST_F(Google2019Test, AnInstancesLastRowCountsWhereverItIs) {
  Write("t/instance_events.json", Run(7, 0, 0, 1000000, 2000000, 0.1) + Run(8, 0, 500000, 600000, 900000) +
                                      Instance(3000000, 2, 7, 0, 0.4) + Run(9, 0, 700000, 800000, 990000));
  const auto read = Read("google-2019:" + Path("t"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 3u);
  // Passed in the order their last rows come: 8, then 7 (its update), then 9.
  EXPECT_EQ(read.workload->jobs[0].name, "8");
  const Job& seven = read.workload->jobs[1];
  EXPECT_EQ(seven.name, "7");
  EXPECT_NEAR(seven.stages[0].demand.units(kCpu), 0.4, 1e-9);
  EXPECT_EQ(seven.stages[0].TaskDuration(0), 1000000);
  EXPECT_EQ(read.workload->jobs[2].name, "9");
}

// Borg numbers a collection's instances 0..n-1, and the second pass holds a
// bit per kept index; indexes too sparse for that make it hold every
// instance of the collection and apply the rules again: the same jobs.
TEST_F(Google2019Test, SparseInstanceIndexesGiveTheSameJob) {
  Write("t/instance_events.json", Run(7, 0, 0, 1000000, 2000000) + Run(7, 1000000000, 0, 1000000, 4000000) +
                                      Instance(0, 0, 7, 500000000) + Instance(10, 7, 7, 500000000) +
                                      Run(7, -3, 0, 1000000, 3000000));
  const auto read = Read("google-2019:" + Path("t"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  ASSERT_EQ(read.workload->jobs.size(), 1u);
  const Stage& s = read.workload->jobs[0].stages[0];
  ASSERT_EQ(s.num_tasks, 3u);
  std::vector<TimeUs> durations = {s.TaskDuration(0), s.TaskDuration(1), s.TaskDuration(2)};
  std::sort(durations.begin(), durations.end());
  EXPECT_EQ(durations, (std::vector<TimeUs>{1000000, 2000000, 3000000}));
  EXPECT_EQ(read.report.skipped("tasks not finished in the files (killed, failed, evicted, lost or running)"), 1u);
}

// The skips are counted by the first pass, each reason with its lowest
// (collection, instance) as example, in that order, as a whole read gave them.
TEST_F(Google2019Test, SkipsNameTheirLowestInstance) {
  Write("t/instance_events.json", Instance(5, 0, 9, 2) + Instance(6, 7, 9, 2) + Run(9, 0, 0, 1, 2) +
                                      Instance(3, 3, 8, 1) + Instance(4, 6, 8, 1) + Instance(5, 0, 8, 4) +
                                      Instance(6, 7, 8, 4));
  const auto read = Read("google-2019:" + Path("t"));
  ASSERT_TRUE(read.workload.ok()) << read.Error();
  EXPECT_THAT(read.report.Lines(),
              ::testing::Contains("skipped: 1 tasks submitted before the files start (e.g. collection 8 instance 1)"));
  EXPECT_THAT(read.report.Lines(),
              ::testing::Contains("skipped: 2 tasks not finished in the files (killed, failed, evicted, lost or running) "
                                  "(e.g. collection 8 instance 4)"));
}

TEST_F(Google2019Test, RefusesALineThatIsNotJson) {
  Write("t/instance_events.json", Run(7, 0, 0, 0, 2000000) + "7,0,0,3\n");
  EXPECT_THAT(Read("google-2019:" + Path("t")).Error(),
              HasSubstr("instance_events.json: line 4: not a JSON object (google-2019 tables are newline-delimited JSON)"));
}

TEST_F(Google2019Test, RefusesAFieldOfTheWrongType) {
  Write("t/instance_events.json", "{\"time\": \"soon\", \"type\": 0, \"collection_id\": 1, \"instance_index\": 0}\n");
  EXPECT_THAT(Read("google-2019:" + Path("t")).Error(), HasSubstr("line 1: field time: \"soon\" is not a whole number"));
  Write("t/instance_events.json", "{\"type\": 0, \"collection_id\": 1, \"instance_index\": 0}\n");
  EXPECT_THAT(Read("google-2019:" + Path("t")).Error(), HasSubstr("line 1: field time is missing"));
}

}  // namespace
}  // namespace weft
