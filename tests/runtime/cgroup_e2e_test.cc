// End-to-end tests of a cgroup per task (issue 20 bug 8) on a local
// cluster: a task's whole process tree, also a child that left its process
// group with setsid, dies when the task is killed, and after a kill -9 of
// its node once the node restarts or the cluster goes down. They need a
// writable cgroup hierarchy (root); elsewhere they skip, saying so.
#include <signal.h>
#include <unistd.h>

#include <fstream>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class CgroupTest : public RuntimeTest {
 protected:
  // UpWithCgroups starts a one-node cluster; false when its node found no
  // cgroup hierarchy to use (the test then skips).
  bool UpWithCgroups() {
    address_ = Up(1);
    const std::string log = Slurp(cluster_ / "node-0" / "node.log");
    return log.find("a cgroup per task in") != std::string::npos;
  }

  // A task whose tree holds two background sleeps of its shell's child and
  // one that left the process group with setsid; each sleep's argument is
  // unique to this test process so that CountTree finds only them.
  std::string TreeJob(const std::string& name) {
    static int tests = 0;
    marker_ = fmt::format("{}.{}{}", 40 + getpid() % 1000, ++tests, getpid() % 97 + 1);
    return Workload(fmt::format(R"({{"name": "{0}", "stages": [{{"name": "s", "tasks": 1, "duration": 1,
        "demand": {{"cpu": 1, "mem": 0.1}},
        "command": "sh -c 'sleep {1} & sleep {1} & wait' & setsid sleep {1} & wait"}}]}})", name, marker_));
  }

  // CountTree: live processes running `sleep MARKER`.
  int CountTree() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string pid = e.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream stat(e.path() / "stat");
      std::string comm_and_state;
      std::getline(stat, comm_and_state);
      if (comm_and_state.find(") Z") != std::string::npos) continue;  // a zombie is dead
      std::ifstream in(e.path() / "cmdline");
      std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (cmdline == "sleep" + std::string(1, '\0') + marker_ + std::string(1, '\0')) ++n;
    }
    return n;
  }

  std::string address_;
  std::string marker_;
};

TEST_F(CgroupTest, KillingATaskKillsItsWholeTreeAlsoWhatLeftItsGroup) {
  if (!UpWithCgroups()) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << Slurp(cluster_ / "node-0" / "node.log");
  SubmitIds(address_, TreeJob("tree"));
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree();
  ASSERT_EQ(Run({"cancel", "--scheduler", address_, "0"}).exit_code, 0);
  EXPECT_TRUE(Until([&] { return CountTree() == 0; })) << CountTree() << " of the task's processes outlived it";
}

TEST_F(CgroupTest, ANodeKilledWithSigkillLeavesNoTreeOnceRestartedOrOnceTheClusterIsDown) {
  if (!UpWithCgroups()) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << Slurp(cluster_ / "node-0" / "node.log");
  SubmitIds(address_, TreeJob("orphan"));
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree();
  ASSERT_EQ(kill(PidOf("node-0"), SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GE(CountTree(), 1) << "nothing outlived the node: the test no longer shows anything";
  // Restarting the node kills what its previous incarnation left; the task
  // then runs again there.
  const Result restart = Run({"cluster", "up", "--nodes", "1", "--dir", cluster_.string(), "--cpu", "1", "--mem", "2"});
  ASSERT_EQ(restart.exit_code, 0) << restart.err;
  EXPECT_THAT(Slurp(cluster_ / "node-0" / "node.log"), HasSubstr("a cgroup per task in"));
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree() << " after the restart (the old tree and the rerun)";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(CountTree(), 3) << "the old tree outlived the restart";
  // A second kill -9, then `cluster down` instead of a restart.
  ASSERT_EQ(kill(PidOf("node-0"), SIGKILL), 0);
  ASSERT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
  EXPECT_TRUE(Until([&] { return CountTree() == 0; })) << CountTree() << " outlived cluster down";
}

}  // namespace
}  // namespace weft
