// File: tests/runtime/runtime_e2e_fixture.h
//
// RuntimeTest: the fixture of the runtime's end-to-end tests (issue 7, issue
// 20): `weft cluster up` starts weftd daemons as real processes, and
// TearDown always runs `weft cluster down`, kills what a test spawned, and
// fails the test if any process of it survives that (survivors.h).
// Every wait is bounded.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/survivors.h"

namespace weft {

namespace fs = std::filesystem;

// Workload (below): jobs in a workload whose cluster section the scheduler ignores.
inline std::string Workload(const std::string& jobs);

class RuntimeTest : public CliTest {
 protected:
  void TearDown() override {
    if (fs::exists(cluster_ / "scheduler.pid") || fs::exists(cluster_ / "scheduler-0.pid")) {
      Run({"cluster", "down", "--dir", cluster_.string()});
    }
    for (pid_t pid : spawned_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    // Nothing the test started may outlive it (issue 34, finding 8): every
    // daemon, keeper and task runs on the test's own dir.
    const std::vector<std::string> left = SurvivorsAfterWaiting(dir_);
    EXPECT_THAT(left, testing::IsEmpty()) << "processes of the test survived it";
    KillSurvivors(left);
    // A killed node's keeper cleans up its work dir as the node dies (its
    // cgroups record): let it finish before the test's dir goes.
    for (int i = 0; i < 50; ++i) {
      try {
        CliTest::TearDown();
        return;
      } catch (const fs::filesystem_error&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    CliTest::TearDown();
  }

  // Up starts a cluster and returns the scheduler's address.
  std::string Up(int nodes, const std::vector<std::string>& extra = {}, const std::string& name = "cluster") {
    cluster_ = dir_ / name;
    std::vector<std::string> args = {"cluster", "up", "--nodes", std::to_string(nodes), "--dir", cluster_.string(),
                                     "--cpu", "1", "--mem", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string out = r.out;
    const auto last = out.find_last_of('\n', out.size() - 2);
    return out.substr(last == std::string::npos ? 0 : last + 1, out.size() - (last + 1) - 1);
  }

  std::vector<std::string> SubmitIds(const std::string& address, const std::string& workload) {
    const Result r = Run({"submit", "--scheduler", address, Write("w.json", workload)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> ids;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) ids.push_back(line);
    return ids;
  }

  Result Wait(const std::string& address, const std::string& job, int timeout_s = 60) {
    return Run({"wait", "--scheduler", address, job, "--timeout", std::to_string(timeout_s)});
  }

  // Until polls `check` every 20 ms for up to 30 s.
  template <typename Check>
  bool Until(Check&& check) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (check()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  int CountFileLines(const fs::path& file) { return CountLines(Slurp(file)); }

  // WorkDir: where a test's task commands leave their traces.
  fs::path WorkDir() {
    fs::create_directories(dir_ / "work");
    return dir_ / "work";
  }

  // Rows of an exported tasks.csv (header dropped).
  std::vector<std::string> TaskRows(const std::string& address) {
    const fs::path out = dir_ / "results";
    const Result r = Run({"status", "--scheduler", address, "--out", out.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> rows;
    std::istringstream lines(Slurp(out / "tasks.csv"));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) rows.push_back(line);
    return rows;
  }

  // ExpectEachTaskOkOnce: the export has `tasks` distinct tasks with an ok
  // attempt, and none of them has two.
  void ExpectEachTaskOkOnce(const std::string& address, size_t tasks) {
    std::map<std::string, int> ok_per_task;  // by job,stage,task
    for (const std::string& row : TaskRows(address)) {
      if (row.find(",ok,") == std::string::npos) continue;
      ++ok_per_task[row.substr(0, row.find(',', row.find(',', row.find(',') + 1) + 1))];
    }
    EXPECT_EQ(ok_per_task.size(), tasks);
    for (const auto& [task, n] : ok_per_task) EXPECT_EQ(n, 1) << task << " reported ok twice";
  }

  pid_t PidOf(const std::string& daemon) {
    pid_t pid = 0;
    std::ifstream(cluster_ / (daemon + ".pid")) >> pid;
    return pid;
  }

  // SpawnWeftd starts `binary` (weftd, or a test build of it) with `args`.
  pid_t SpawnWeftd(const std::vector<std::string>& args, const fs::path& log, const char* binary = WEFTD_BINARY) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> strings = {binary};
    strings.insert(strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, binary, &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    spawned_.push_back(pid);
    return pid;
  }

  // SpawnScheduler starts `weftd scheduler` on a free loopback port with its
  // state in dir_/state and `args` added, and returns its address.
  std::string SpawnScheduler(const std::vector<std::string>& args) {
    const fs::path state = dir_ / "state";
    std::vector<std::string> all = {"scheduler", "--listen", "127.0.0.1:0", "--state", state.string()};
    all.insert(all.end(), args.begin(), args.end());
    SpawnWeftd(all, dir_ / "s.out");
    EXPECT_TRUE(Until([&] { return fs::exists(state / "address"); }));
    std::string address = Slurp(state / "address");
    if (!address.empty()) address.pop_back();
    return address;
  }

  // StopANodeDuringATask (issue 20 bug 8): a one-node cluster (heartbeats
  // every 0.1 s, the node lost after 1 s of silence) runs one task of
  // `task_s` seconds that appends to WorkDir()/starts when it starts and to
  // WorkDir()/ends when it ends; once it has started the node is stopped
  // (SIGSTOP) for `stop_ms`, then continued, and the job is waited for
  // (expected to succeed). With `need_cgroups`, returns false before
  // submitting anything when the node has no cgroups (the caller skips).
  bool StopANodeDuringATask(double task_s, int stop_ms, bool need_cgroups) {
    const fs::path work = WorkDir();
    const std::string address = SpawnScheduler({"--nodes", "1", "--heartbeat", "0.1", "--node-timeout", "1"});
    const pid_t node = SpawnWeftd({"node", "--scheduler", address, "--name", "n0", "--cpu", "1", "--mem", "1",
                                   "--work-dir", (dir_ / "n0").string()},
                                  dir_ / "n0.out");
    EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 1/1 up") != std::string::npos; }));
    if (need_cgroups && Slurp(dir_ / "n0" / "node.log").find("a cgroup per task in") == std::string::npos) return false;
    SubmitIds(address, Workload(fmt::format(R"({{"name": "once", "stages": [{{"name": "s", "tasks": 1, "duration": {1},
        "demand": {{"cpu": 1, "mem": 0.1}}, "command": "echo start >> {0}/starts; sleep {1}; echo end >> {0}/ends"}}]}})",
                                            work.string(), task_s)));
    EXPECT_TRUE(Until([&] { return fs::exists(work / "starts"); }));
    EXPECT_EQ(kill(node, SIGSTOP), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(stop_ms));
    EXPECT_EQ(kill(node, SIGCONT), 0);
    EXPECT_EQ(Wait(address, "0", 30).exit_code, 0);
    return true;
  }

  fs::path cluster_;
  std::vector<pid_t> spawned_;
};

// CsvRows: the lines of a CSV file split at commas, header first.
inline std::vector<std::vector<std::string>> CsvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    rows.push_back(std::move(cells));
  }
  return rows;
}

// NodeGroups: a node's cgroups, one per hierarchy (WORK_DIR/cgroups, which
// the node writes at start; empty without cgroups).
inline std::vector<fs::path> NodeGroups(const fs::path& node_work_dir) {
  std::vector<fs::path> dirs;
  std::ifstream in(node_work_dir / "cgroups");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) dirs.emplace_back(line);
  }
  return dirs;
}

// NodeCpuLimits: the node's groups can take a cpu quota.
inline bool NodeCpuLimits(const fs::path& node_work_dir) {
  for (const fs::path& d : NodeGroups(node_work_dir)) {
    if (fs::exists(d / "cpu.cfs_quota_us") || fs::exists(d / "cpu.max")) return true;
  }
  return false;
}

// TaskQuotas: the cpu quota (cores) of each of the node's task groups now
// (docs/runtime.md, "Enforcement"); groups without one are left out.
inline std::vector<double> TaskQuotas(const fs::path& node_work_dir) {
  std::vector<double> quotas;
  for (const fs::path& d : NodeGroups(node_work_dir)) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec)) {
      const std::string name = e.path().filename().string();
      if (!e.is_directory(ec) || name.empty() || name[0] != 't') continue;
      if (fs::exists(e.path() / "cpu.cfs_quota_us")) {
        double quota = 0, period = 0;
        std::ifstream(e.path() / "cpu.cfs_quota_us") >> quota;
        std::ifstream(e.path() / "cpu.cfs_period_us") >> period;
        if (quota > 0 && period > 0) quotas.push_back(quota / period);
      } else if (fs::exists(e.path() / "cpu.max")) {
        std::string quota;
        double period = 0;
        std::ifstream(e.path() / "cpu.max") >> quota >> period;
        if (!quota.empty() && quota != "max" && period > 0) quotas.push_back(std::stod(quota) / period);
      }
    }
  }
  return quotas;
}

// Workload: `jobs` (JSON objects, comma-separated) in a workload whose
// cluster section the scheduler ignores.
inline std::string Workload(const std::string& jobs) {
  return R"({"weft": 1, "cluster": {"machines": [{"name": "x", "capacity": {"cpu": 1, "mem": 1}}]}, "jobs": [)" +
         jobs + "]}";
}

}  // namespace weft
