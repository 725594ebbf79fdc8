// ResultsWriter writes tasks.csv and jobs.csv exactly as FORMATS.md section 2
// says: a golden test of the row text (CSV quoting of job, stage and machine
// names, seconds with six decimals, demands as shortest decimals), and
// nothing under the final names before Finish.
#include "metrics/results_writer.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace weft {
namespace {

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

Workload GoldenWorkload() {
  Workload w;
  w.cluster.AddMachine("m0", RackId(0), *Resources::FromUnits({4, 8, 0, 0}));
  w.cluster.AddMachine("big,one", RackId(1), *Resources::FromUnits({16, 64, 10, 10}));
  w.users = {"u \"x\""};
  Job job;
  job.name = "etl, nightly";
  job.user = UserId(0);
  Stage s;
  s.name = "scan \"a\"";
  s.num_tasks = 2;
  s.duration_us = 1'500'000;
  s.demand = *Resources::FromUnits({0.5, 2.25, 0, 1});
  s.usage = s.demand;
  job.stages = {s};
  job.topo_order = {0};
  job.num_tasks = 2;
  w.jobs.clear();
  w.jobs.push_back(job);
  return w;
}

TEST(ResultsWriterTest, RowsAreExactlyTheFormat) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "weft_results_writer_test";
  std::filesystem::remove_all(dir);
  const Workload w = GoldenWorkload();
  auto writer = ResultsWriter::Open(dir.string(), w);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const Resources d = w.jobs[0].stages[0].demand;
  (*writer)->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(0), 0, 0}, .attempt = 0, .machine = MachineId(1),
                                        .ready_us = 0, .start_us = 0, .end_us = 1'500'000,
                                        .outcome = Outcome::kFailed, .demand = d, .locality = Locality::kRack});
  (*writer)->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(0), 0, 0}, .attempt = 1, .machine = MachineId(0),
                                        .ready_us = 1'500'000, .start_us = 1'500'001, .end_us = 123'456'000'001,
                                        .outcome = Outcome::kOk, .demand = d});
  (*writer)->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(0), 0, 1}, .attempt = 0, .machine = MachineId(0),
                                        .ready_us = 7, .start_us = 10, .end_us = 20, .outcome = Outcome::kKilled,
                                        .demand = *Resources::FromUnits({1, 0, 0, 0}), .locality = Locality::kNode});
  (*writer)->OnJobEnd(JobRecord{.job = JobId(0), .arrival_us = 0, .start_us = 0, .end_us = 3'000'000});
  EXPECT_FALSE(std::filesystem::exists(dir / "tasks.csv")) << "nothing under the final name before Finish";
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ(Slurp(dir / "tasks.csv"),
            "job,stage,task,attempt,machine,ready,start,end,outcome,cpu,mem,disk,net,locality\n"
            "\"etl, nightly\",\"scan \"\"a\"\"\",0,0,\"big,one\",0.000000,0.000000,1.500000,failed,0.5,2.25,0,1,rack\n"
            "\"etl, nightly\",\"scan \"\"a\"\"\",0,1,m0,1.500000,1.500001,123456.000001,ok,0.5,2.25,0,1,none\n"
            "\"etl, nightly\",\"scan \"\"a\"\"\",1,0,m0,0.000007,0.000010,0.000020,killed,1,0,0,0,node\n");
  const std::string jobs = Slurp(dir / "jobs.csv");
  EXPECT_EQ(jobs.substr(0, jobs.find('\n') + 1), "job,user,arrival,start,end,jct,outcome,newlb,newlb_ratio\n");
  EXPECT_EQ(jobs.substr(jobs.find('\n') + 1, 58), "\"etl, nightly\",\"u \"\"x\"\"\",0.000000,0.000000,3.000000,3.0000");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weft
