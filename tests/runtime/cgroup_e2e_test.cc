// End-to-end tests of a cgroup per task (issue 20 bug 8) on a local
// cluster: a task's whole process tree, also a child that left its process
// group with setsid, dies when the task is killed, and after a kill -9 of
// its node once the node restarts or the cluster goes down. They need a
// writable cgroup hierarchy (root); elsewhere they skip, saying so.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

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

// KeeperOf: the pid of the keeper process of the node working in `work`
// (from its log; 0 if none).
pid_t KeeperOf(const fs::path& work) {
  std::ifstream log(work / "node.log");
  pid_t pid = 0;
  for (std::string line; std::getline(log, line);) {
    if (const size_t at = line.find("keeper process "); at != std::string::npos) pid = std::stoi(line.substr(at + 15));
  }
  return pid;
}

// Its keeper kills what a node killed with -9 leaves, at once.
TEST_F(CgroupTest, ANodeKilledWithSigkillLeavesNoTree) {
  if (!UpWithCgroups()) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << Slurp(cluster_ / "node-0" / "node.log");
  SubmitIds(address_, TreeJob("orphan"));
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree();
  ASSERT_EQ(kill(PidOf("node-0"), SIGKILL), 0);
  EXPECT_TRUE(Until([&] { return CountTree() == 0; })) << CountTree() << " outlived the node";
}

// Without its keeper (killed first), the restarted node kills what its
// previous incarnation left, or `cluster down` does.
TEST_F(CgroupTest, WithoutItsKeeperTheRestartOrClusterDownKillsTheTree) {
  if (!UpWithCgroups()) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << Slurp(cluster_ / "node-0" / "node.log");
  SubmitIds(address_, TreeJob("orphan"));
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree();
  const pid_t keeper = KeeperOf(cluster_ / "node-0");
  ASSERT_GT(keeper, 0);
  ASSERT_EQ(kill(keeper, SIGKILL), 0);
  ASSERT_EQ(kill(PidOf("node-0"), SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GE(CountTree(), 1) << "nothing outlived the node: the test no longer shows anything";
  // The restart kills the old tree; the task then runs again there.
  const Result restart = Run({"cluster", "up", "--nodes", "1", "--dir", cluster_.string(), "--cpu", "1", "--mem", "2"});
  ASSERT_EQ(restart.exit_code, 0) << restart.err;
  ASSERT_TRUE(Until([&] { return CountTree() == 3; })) << CountTree() << " after the restart (the old tree and the rerun)";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(CountTree(), 3) << "the old tree outlived the restart";
  // Again, then `cluster down` instead of a restart.
  ASSERT_EQ(kill(KeeperOf(cluster_ / "node-0"), SIGKILL), 0);
  ASSERT_EQ(kill(PidOf("node-0"), SIGKILL), 0);
  ASSERT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
  EXPECT_TRUE(Until([&] { return CountTree() == 0; })) << CountTree() << " outlived cluster down";
}

// Bug 8: a node stopped (SIGSTOP) past its scheduler's deadline is declared
// lost and its task runs again; its tasks stop with it (its keeper freezes
// them), and when it wakes it kills them before it registers again, so the
// task runs to completion once, not once on each side.
TEST_F(CgroupTest, ANodeStoppedPastItsDeadlineDoesNotFinishTheTaskBesideTheRerun) {
  // Lost after 1 s; the task alone would end after 1 s, during the stop.
  if (!StopANodeDuringATask(1, 2500, /*need_cgroups=*/true)) {
    GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): nothing can stop the tasks with their node";
  }
  EXPECT_EQ(CountFileLines(WorkDir() / "starts"), 2);  // the first copy and the rerun
  EXPECT_EQ(CountFileLines(WorkDir() / "ends"), 1) << "the first copy ran to completion while its node was stopped";
  EXPECT_THAT(Slurp(dir_ / "n0" / "node.log"), HasSubstr("past scheduler"));
}

// Issue 12 §4: a container is a cgroup of the container's size on its node,
// with the tasks that run in it nested inside. COBRA with its desire held at
// 1 runs a job's four 0.25-core tasks at once in one 1-core, 2-GB container.
TEST_F(CgroupTest, AContainerIsACgroupOfItsSizeHoldingItsTasks) {
  address_ = Up(1, {"--policy", "cobra", "--param", "period=600", "--param", "response_time=0"});
  const std::string log = Slurp(cluster_ / "node-0" / "node.log");
  const size_t at = log.find("a cgroup per task in ");
  if (at == std::string::npos) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << log;
  // The node's groups, from its log line: "... in DIR DIR ... (killed ...".
  std::istringstream dirs(log.substr(at + 21, log.find(" (", at) - at - 21));
  fs::path memory, cpu;
  for (std::string dir; dirs >> dir;) {
    if (fs::exists(fs::path(dir) / "memory.limit_in_bytes") || fs::exists(fs::path(dir) / "memory.max")) memory = dir;
    if (fs::exists(fs::path(dir) / "cpu.cfs_quota_us") || fs::exists(fs::path(dir) / "cpu.max")) cpu = dir;
  }
  if (memory.empty() || cpu.empty()) GTEST_SKIP() << "no cpu or memory controller for the node's groups: " << log;
  SubmitIds(address_, Workload(R"({"name": "packed", "stages": [
      {"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 0.25, "mem": 0.1}, "command": "sleep 1.5"}]})"));
  // Several tasks in one container at once: a container group with four task groups.
  auto container_with_four = [&]() -> std::string {
    std::error_code ec;
    for (const auto& c : fs::directory_iterator(memory, ec)) {
      const std::string name = c.path().filename().string();
      if (!c.is_directory() || name.front() != 'c') continue;
      int tasks = 0;
      for (const auto& t : fs::directory_iterator(c.path(), ec)) tasks += t.is_directory() && t.path().filename().string().front() == 't';
      if (tasks == 4) return name;
    }
    return "";
  };
  std::string container;
  ASSERT_TRUE(Until([&] { return !(container = container_with_four()).empty(); })) << "never saw four tasks in one container";
  // Its limits are the container's size: 1 core, 2 GB.
  auto read = [](const fs::path& file) {
    std::ifstream in(file);
    std::string value;
    std::getline(in, value);
    return value;
  };
  const fs::path mem_file = memory / container / (fs::exists(memory / container / "memory.limit_in_bytes")
                                                       ? "memory.limit_in_bytes" : "memory.max");
  EXPECT_NEAR(std::stod(read(mem_file)), 2e9, 4096) << "the kernel rounds it down to a page";
  if (fs::exists(cpu / container / "cpu.cfs_quota_us")) {
    EXPECT_EQ(read(cpu / container / "cpu.cfs_quota_us"), "100000");
    EXPECT_EQ(read(cpu / container / "cpu.cfs_period_us"), "100000");
  } else {
    EXPECT_EQ(read(cpu / container / "cpu.max"), "100000 100000");
  }
  EXPECT_EQ(Wait(address_, "0", 60).exit_code, 0);
  // The container's group goes with its last task.
  EXPECT_TRUE(Until([&] { return !fs::exists(memory / container); }));
}

// Issue 14: memory over-commit inside a container. A task that grows past
// its container's memory limit (a 100 MB container; `tail` holding 400 MB
// of a line with no end) is killed by the kernel's OOM killer, not by the
// node: the attempt fails, the job fails once its retries are spent, and
// the scheduler's log says why.
TEST_F(CgroupTest, ATaskOverItsContainersMemoryIsKilledByTheOomKillerAndSaysSo) {
  address_ = Up(1, {"--policy", "cobra", "--param", "period=600", "--param", "response_time=0", "--param",
                    "container_mem=0.1"});
  const std::string log = Slurp(cluster_ / "node-0" / "node.log");
  const size_t at = log.find("a cgroup per task in ");
  if (at == std::string::npos) GTEST_SKIP() << "no writable cgroup hierarchy here (needs root): " << log;
  std::istringstream dirs(log.substr(at + 21, log.find(" (", at) - at - 21));
  bool memory = false;
  for (std::string dir; dirs >> dir;) {
    memory = memory || fs::exists(fs::path(dir) / "memory.oom_control") || fs::exists(fs::path(dir) / "memory.events");
  }
  if (!memory) GTEST_SKIP() << "no memory controller for the node's groups: " << log;
  SubmitIds(address_, Workload(R"({"name": "hog", "stages": [{"name": "s", "tasks": 1, "duration": 1,
      "demand": {"cpu": 0.5, "mem": 0.05}, "command": "head -c 400M /dev/zero | tail"}]})"));
  const Result r = Wait(address_, "0", 60);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out + r.err, HasSubstr("failed"));
  EXPECT_THAT(Slurp(cluster_ / "scheduler" / "scheduler.log"),
              HasSubstr("exit 137 killed by the kernel's OOM killer: over its container's memory limit"));
}

}  // namespace
}  // namespace weft
