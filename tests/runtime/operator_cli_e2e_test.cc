// The operator's command line against real daemons (issue 32, §4): where
// `weft` finds the scheduler without --scheduler, `weft submit --wrap`, and
// a submission read only up to the size a scheduler accepts.
#include <signal.h>
#include <stdlib.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// OwnStateDir: the per-user index `cluster up` writes goes to the test's dir
// (this test runs in a process of its own), so the clusters it knows are
// exactly the test's.
class OperatorCliTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    setenv("XDG_STATE_HOME", (dir_ / "state").c_str(), 1);
    unsetenv("WEFT_SCHEDULER");
  }
  void TearDown() override {
    unsetenv("WEFT_SCHEDULER");
    RuntimeTest::TearDown();
    unsetenv("XDG_STATE_HOME");
  }
};

TEST_F(OperatorCliTest, TheSchedulerIsTheOneLocalClusterOrTheEnvironments) {
  const Result none = Run({"status"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("no local cluster is up"));
  EXPECT_EQ(CountLines(none.err), 1);

  const std::string first = Up(1, {}, "first");
  const fs::path first_dir = cluster_;
  const Result found = Run({"status"});
  EXPECT_EQ(found.exit_code, 0) << found.err;
  EXPECT_THAT(found.out, HasSubstr("nodes 1/1 up"));

  // The environment comes before the index: a scheduler that is not there.
  setenv("WEFT_SCHEDULER", "127.0.0.1:1", 1);
  const Result env = Run({"status"});
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_THAT(env.err, HasSubstr("127.0.0.1:1"));
  setenv("WEFT_SCHEDULER", first.c_str(), 1);
  EXPECT_EQ(Run({"status"}).exit_code, 0);
  unsetenv("WEFT_SCHEDULER");

  // Two local clusters: which one is meant cannot be guessed.
  Up(1, {}, "second");
  const Result two = Run({"status"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, HasSubstr("2 local clusters are up"));
  EXPECT_THAT(two.err, HasSubstr(first));
  EXPECT_EQ(CountLines(two.err), 1);
  EXPECT_EQ(Run({"cluster", "down", "--dir", first_dir.string()}).exit_code, 0);
  EXPECT_EQ(Run({"status"}).exit_code, 0);  // one again
}

TEST_F(OperatorCliTest, SubmitWrapRunsOneStageWithoutAWorkloadFile) {
  const std::string address = Up(1);
  const fs::path work = WorkDir();
  const Result submit = Run({"submit", "--scheduler", address, "--wrap",
                             fmt::format("echo ran > {}/ran-$WEFT_TASK", work.string()), "--tasks", "2", "--cpu", "0.5",
                             "--mem", "0.1", "--name", "wrapped"});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_EQ(submit.out, "0\n");
  EXPECT_EQ(Wait(address, "0").exit_code, 0);
  EXPECT_TRUE(fs::exists(work / "ran-0"));
  EXPECT_TRUE(fs::exists(work / "ran-1"));
  const Result status = Run({"status", "--scheduler", address, "0"});
  EXPECT_THAT(status.out, HasSubstr("wrapped"));
  EXPECT_THAT(status.out, HasSubstr("2/2"));
  // The job's shape needs --wrap; a file and --wrap together are refused.
  const Result shape = Run({"submit", "--scheduler", address, "--cpu", "1", Write("w.json", "{}")});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_THAT(shape.err, HasSubstr("--wrap"));
  EXPECT_EQ(Run({"submit", "--scheduler", address, "--wrap", "true", Write("w2.json", "{}")}).exit_code, 2);
  EXPECT_EQ(Run({"submit", "--scheduler", address}).exit_code, 2);
  // The scheduler checks what --wrap makes as any submission.
  const Result bad = Run({"submit", "--scheduler", address, "--wrap", "true", "--name", "a\tb"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
}

// NodeLines: `weft nodes`'s output, each line split on blanks, by node name.
std::map<std::string, std::vector<std::string>> NodeLines(const std::string& out) {
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (!w.empty() && w[0] != "node") lines[w[0]] = w;
  }
  return lines;
}

TEST_F(OperatorCliTest, NodesListsStateCapacityAndReservations) {
  const std::string address = Up(2);  // 1 core and 2 GB each
  ASSERT_EQ(Run({"submit", "--scheduler", address, "--wrap", "sleep 30", "--cpu", "1", "--mem", "0.5"}).exit_code, 0);
  // name state cpu cpu_reserved cpu_used mem_gb mem_reserved mem_used
  std::map<std::string, std::vector<std::string>> nodes;
  ASSERT_TRUE(Until([&] {
    const Result r = Run({"nodes", "--scheduler", address});
    nodes = NodeLines(r.out);
    return r.exit_code == 0 && nodes.size() == 2 &&
           (nodes["node-0"].at(3) == "1.00" || nodes["node-1"].at(3) == "1.00");
  })) << Run({"nodes", "--scheduler", address}).out;
  for (const std::string name : {"node-0", "node-1"}) {
    ASSERT_EQ(nodes[name].size(), 8u);
    EXPECT_EQ(nodes[name][1], "up");
    EXPECT_EQ(nodes[name][2], "1.00");
    EXPECT_EQ(nodes[name][5], "2.00");
  }
  const std::string busy = nodes["node-0"][3] == "1.00" ? "node-0" : "node-1";
  const std::string idle = busy == "node-0" ? "node-1" : "node-0";
  EXPECT_EQ(nodes[busy][6], "0.50");
  EXPECT_EQ(nodes[idle][3], "0.00");
  ASSERT_EQ(kill(PidOf(idle), SIGKILL), 0);
  EXPECT_TRUE(Until([&] { return NodeLines(Run({"nodes", "--scheduler", address}).out)[idle].at(1) == "down"; }));
  EXPECT_EQ(Run({"cancel", "--scheduler", address, "0"}).exit_code, 0);
}

// A cancelled job is `cancelled` in the exported jobs.csv, a failed one `failed`.
TEST_F(OperatorCliTest, ACancelledJobIsCancelledInTheExport) {
  const std::string address = Up(1);
  ASSERT_EQ(Run({"submit", "--scheduler", address, "--wrap", "exit 3", "--name", "broken"}).exit_code, 0);
  EXPECT_EQ(Wait(address, "0").exit_code, 1);
  ASSERT_EQ(Run({"submit", "--scheduler", address, "--wrap", "sleep 30", "--name", "stopped"}).exit_code, 0);
  ASSERT_TRUE(Until([&] { return Run({"status", "--scheduler", address, "1"}).out.find("running") != std::string::npos; }));
  ASSERT_EQ(Run({"cancel", "--scheduler", address, "1"}).exit_code, 0);
  EXPECT_EQ(Wait(address, "1").exit_code, 1);
  const fs::path out = dir_ / "export";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  std::map<std::string, std::string> outcome;  // job name -> outcome column
  for (const std::vector<std::string>& row : CsvRows(Slurp(out / "jobs.csv"))) {
    if (row.size() > 6) outcome[row[0]] = row[6];
  }
  EXPECT_EQ(outcome["broken"], "failed");
  EXPECT_EQ(outcome["stopped"], "cancelled");
}

// Issue 34, finding 6: `weft submit /dev/zero` read without bound.
TEST_F(OperatorCliTest, SubmitStopsReadingAtTheSizeASchedulerAccepts) {
  const Result r = Run({"submit", "--scheduler", "127.0.0.1:1", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("larger than 64 MiB"));
  EXPECT_EQ(CountLines(r.err), 1);
  const Result missing = Run({"submit", "--scheduler", "127.0.0.1:1", (dir_ / "no-such.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, Not(HasSubstr("larger")));
}

}  // namespace
}  // namespace weft
