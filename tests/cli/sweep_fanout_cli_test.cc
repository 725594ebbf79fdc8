// End-to-end tests of `weft sweep` beyond this machine (docs/sweep.md): the
// runs fanned out one by one (--only), as a weft workload of command tasks
// (--emit) and as a real Slurm job array (--slurm, on a one-machine Slurm
// cluster started by scripts/slurm-local.sh; skipped, visibly, where it
// cannot start). The property that matters everywhere: the gathered tables
// equal those of the same sweep run locally.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class SweepFanoutTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    workload_ = Write("w.json", R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 2, "mem": 4}}]},
  "jobs": [
    {"name": "a", "stages": [{"name": "s", "tasks": 6, "duration": 1, "durations": [1, 2, 3, 1, 2, 0.5],
                              "demand": {"cpu": 1, "mem": 1}}]},
    {"name": "b", "arrival": 0.5, "stages": [{"name": "s", "tasks": 4, "duration": 2, "demand": {"cpu": 1, "mem": 1}}]}]
})");
  }
  // The sweep every test fans out: random with 2 values and fifo, x 2 seeds = 6 runs
  // (random differs by seed, so a mixed-up run would show).
  std::vector<std::string> Sweep(const std::string& out) {
    return {"sweep", workload_, "--policies", "random,fifo", "--param", "random:estimate_noise=0,0.5", "--seeds",
            "1..2", "--out", out};
  }
  static std::vector<std::string> With(std::vector<std::string> args, std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
  }
  std::string LocalTable() {
    const std::string out = (dir_ / "local").string();
    const Result r = Run(Sweep(out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Slurp(out + "/sweep.csv");
  }
  std::string workload_;
};

TEST_F(SweepFanoutTest, RunsOneByOneThenGatheredEqualTheLocalSweep) {
  const std::string expected = LocalTable();
  ASSERT_GT(CountLines(expected), 3);
  const std::string out = (dir_ / "fanned").string();
  for (int k = 5; k >= 0; --k) {  // any order: each run is independent
    const Result r = Run(With(Sweep(out), {"--only", std::to_string(k)}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // no table for one run
  }
  const Result gathered = Run(With(Sweep(out), {"--gather"}));
  ASSERT_EQ(gathered.exit_code, 0) << gathered.err;
  EXPECT_EQ(Slurp(out + "/sweep.csv"), expected);
}

TEST_F(SweepFanoutTest, GatherReportsRunsThatNeverEnded) {
  const std::string out = (dir_ / "partial").string();
  ASSERT_EQ(Run(With(Sweep(out), {"--only", "0"})).exit_code, 0);
  const Result r = Run(With(Sweep(out), {"--gather"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err), 5) << r.err;  // one line per missing run
  EXPECT_THAT(r.err, HasSubstr("summary.json: missing"));
  EXPECT_THAT(Slurp(out + "/sweep.csv"), HasSubstr(",2,1,"));  // first configuration: 2 runs, 1 failed
}

TEST_F(SweepFanoutTest, BadFanoutFlagsAreRefusedWithNothingWritten) {
  const std::string out = (dir_ / "bad").string();
  ExpectBadInput(Run(With(Sweep(out), {"--only", "6"})));
  EXPECT_FALSE(std::filesystem::exists(out + "/runs"));
  ExpectBadInput(Run(With(Sweep(out), {"--wait"})));              // --wait needs --slurm
  ExpectBadInput(Run(With(Sweep(out), {"--only", "1", "--gather"})));  // exclusive
}

// The emitted workload runs each task as a weft node does: /bin/sh -c
// COMMAND with WEFT_TASK set (docs/runtime.md, "Tasks").
TEST_F(SweepFanoutTest, EmittedWorkloadIsValidAndItsTasksReproduceTheSweep) {
  const std::string expected = LocalTable();
  const std::string out = (dir_ / "emitted").string(), emitted = (dir_ / "sweep-jobs.json").string();
  const Result r = Run(With(Sweep(out), {"--emit", emitted}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("6 runs"));
  EXPECT_FALSE(std::filesystem::exists(out + "/runs")) << "--emit runs nothing";
  const nlohmann::json w = nlohmann::json::parse(Slurp(emitted));
  // A jobs-only file, as `weft submit` takes; with a cluster it validates.
  nlohmann::json with_cluster = w;
  with_cluster["cluster"] = {{"machines", {{{"name", "n"}, {"capacity", {{"cpu", 2}, {"mem", 2}}}}}}};
  const Result valid = Run({"validate", Write("with-cluster.json", with_cluster.dump())});
  EXPECT_EQ(valid.exit_code, 0) << valid.err;

  const nlohmann::json& runs = w["jobs"][0]["stages"][0];
  const nlohmann::json& gather = w["jobs"][0]["stages"][1];
  ASSERT_EQ(runs["tasks"], 6);
  EXPECT_EQ(gather["after"][0], "runs");
  for (int k = 0; k < 6; ++k) {
    ASSERT_EQ(setenv("WEFT_TASK", std::to_string(k).c_str(), 1), 0);
    const Result task = RunProgram("/bin/sh", {"-c", runs["command"].get<std::string>()});
    ASSERT_EQ(task.exit_code, 0) << task.err;
  }
  unsetenv("WEFT_TASK");
  const Result g = RunProgram("/bin/sh", {"-c", gather["command"].get<std::string>()});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(Slurp(out + "/sweep.csv"), expected);
}

// A real one-machine Slurm cluster: the array runs, --wait gathers.
TEST_F(SweepFanoutTest, SlurmJobArrayGathersTheSameTable) {
  const std::string slurm_dir = (dir_ / "slurm").string();
  const std::string script = std::string(WEFT_SOURCE_DIR) + "/scripts/slurm-local.sh";
  const Result up = RunProgram("/bin/bash", {script, "start", slurm_dir});
  if (up.exit_code == 3) GTEST_SKIP() << "no local Slurm here: " << up.err;
  ASSERT_EQ(up.exit_code, 0) << up.err;
  ASSERT_EQ(setenv("SLURM_CONF", (slurm_dir + "/slurm.conf").c_str(), 1), 0);
  const std::string expected = LocalTable();
  const std::string out = (dir_ / "slurm-out").string();
  const Result r = Run(With(Sweep(out), {"--slurm", "--wait"}));
  RunProgram("/bin/bash", {script, "stop", slurm_dir});
  unsetenv("SLURM_CONF");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("array job"));
  EXPECT_EQ(Slurp(out + "/sweep.csv"), expected);
  EXPECT_TRUE(std::filesystem::exists(out + "/slurm/run-5.out"));
}

TEST_F(SweepFanoutTest, SlurmWithoutSbatchSaysSo) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  ASSERT_EQ(setenv("PATH", "/nonexistent", 1), 0);
  const Result r = Run(With(Sweep((dir_ / "x").string()), {"--slurm"}));
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("sbatch"));
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace weft
