// Ursa for real (issue 15).
//
// `ursa`: two phased jobs on one 1-core node, whose node agent keeps one
// queue per resource and starts each monotask itself. The phases are
// built-in: a cpu phase burns the core, a net phase moves its bytes over a
// loopback TCP connection (runtime/node/task_runner.h). Job "netfirst" reads
// over the network, then computes; job "cpufirst" computes, then sends. Each
// job has one task, so a cpu monotask and a net monotask running at the same
// moment belong to the two jobs. While the jobs run, the test samples the
// node's children in /proc (a built-in phase is a child process of the node
// daemon; a net phase holds TCP sockets, a cpu phase none) and checks that
// some cpu monotask ran while the other job's network monotask did, and that
// the network queue never ran two at once (net_concurrency 1). Under fifo the
// whole tasks would hold the one core in turn and never overlap.
//
// `ursa-yarn`: two jobs of phased built-in tasks, each job in containers of
// its own (the node's 2 cores and 4 GB make one container): the second job
// starts only when the first job's container goes, as Y+U shares nothing
// across jobs.
#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

// ChildrenOf: the pids whose parent is `parent` (from /proc/PID/stat).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  while (dirent* e = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != "Z") out.push_back(pid);
  }
  closedir(proc);
  return out;
}

// HasSocket: some open file of `pid` is a socket.
bool HasSocket(pid_t pid) {
  const std::string dir = fmt::format("/proc/{}/fd", pid);
  DIR* fds = opendir(dir.c_str());
  if (fds == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(fds)) {
    char target[256];
    const ssize_t n = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
    if (n > 0 && std::string_view(target, static_cast<size_t>(n)).starts_with("socket:")) found = true;
  }
  closedir(fds);
  return found;
}

class UrsaRuntimeTest : public RuntimeTest {
 protected:
  // Node: a scheduler under `policy` and one node of `cpu` cores, `mem` GB
  // and `net` MB/s; returns the scheduler's address and the node daemon's pid.
  std::pair<std::string, pid_t> Node(const std::string& policy, const std::string& cpu, const std::string& mem,
                                     const std::string& net = "1000") {
    const fs::path state = dir_ / "state";
    SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", state.string(), "--nodes", "1", "--policy",
                policy, "--heartbeat", "0.1"},
               dir_ / "s.out");
    EXPECT_TRUE(Until([&] { return fs::exists(state / "address"); }));
    std::string address = Slurp(state / "address");
    address.pop_back();
    const pid_t node = SpawnWeftd({"node", "--scheduler", address, "--name", "n0", "--cpu", cpu, "--mem", mem,
                                   "--net", net, "--work-dir", (dir_ / "n0").string()},
                                  dir_ / "n0.out");
    EXPECT_TRUE(
        Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 1/1 up") != std::string::npos; }));
    return {address, node};
  }
};

TEST_F(UrsaRuntimeTest, UrsaOverlapsOneJobsCpuMonotasksWithTheOthersRealNetworkTrafficOnOneNode) {
  // Offered bandwidth 10 GB/s: Algorithm 1 estimates each 300 MB pull at
  // 0.03 s, so both tasks fit one batch's EPT (at the 1 GB/s default each
  // alone would fill it, and the second task would wait for the first's
  // pull to be reported done).
  const auto [address, node] = Node("ursa", "1", "4", "10000");
  // Built-in phases (no command): 0.2 core-seconds of cpu (below ursa's
  // EPT of 0.24 s, so Algorithm 1 places both tasks in one batch); 300 MB
  // over loopback.
  const std::string job = R"({{"name": "{0}", "stages": [{{"name": "s", "tasks": 1,
      "demand": {{"cpu": 1, "mem": 0.5, "net": 10}}, "phases": [{1}, {2}]}}]}})";
  const std::string net = R"({"resource": "net", "work": 300})", cpu = R"({"resource": "cpu", "work": 0.2})";

  // Sample the node's children until the jobs end: per sample, the built-in
  // phases running (a child that ever held a socket is a net phase).
  std::atomic<bool> stop{false};
  std::vector<std::vector<pid_t>> samples;
  std::set<pid_t> net_pids;
  std::thread sampler([&, node = node] {
    while (!stop) {
      std::vector<pid_t> now = ChildrenOf(node);
      for (pid_t p : now) {
        if (HasSocket(p)) net_pids.insert(p);
      }
      if (!now.empty()) samples.push_back(std::move(now));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{}, {}]}})",
                                                  fmt::format(fmt::runtime(job), "netfirst", net, cpu),
                                                  fmt::format(fmt::runtime(job), "cpufirst", cpu, net)));
  bool ok = ids.size() == 2;
  for (const std::string& id : ids) {
    const Result r = Wait(address, id, 60);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0.out");
    ok = ok && r.exit_code == 0;
  }
  stop = true;
  sampler.join();
  ASSERT_TRUE(ok);

  // Both jobs' network phases really ran (two distinct children with sockets).
  EXPECT_EQ(net_pids.size(), 2u);
  int overlapping = 0, net_only = 0, cpu_only = 0;
  for (const std::vector<pid_t>& s : samples) {
    int nets = 0, cpus = 0;
    for (pid_t p : s) (net_pids.contains(p) ? nets : cpus) += 1;
    EXPECT_LE(nets, 1) << "two network monotasks at once on one node";
    EXPECT_LE(cpus, 1) << "two cpu monotasks at once on one core";
    if (nets == 1 && cpus == 1) ++overlapping;
    if (nets == 1 && cpus == 0) ++net_only;
    if (nets == 0 && cpus == 1) ++cpu_only;
  }
  // One job's cpu monotask ran beside the other's network monotask (each
  // phase lasts well over the 5 ms between samples).
  EXPECT_GT(overlapping, 2) << samples.size() << " samples: " << net_only << " net alone, " << cpu_only
                            << " cpu alone";
}

TEST_F(UrsaRuntimeTest, UrsaYarnRunsEachJobInItsOwnContainers) {
  const auto [address, node] = Node("ursa-yarn", "2", "4");
  (void)node;
  const std::string job = R"({{"name": "{}", "stages": [{{"name": "s", "tasks": 2,
      "demand": {{"cpu": 1, "mem": 1}},
      "phases": [{{"resource": "net", "work": 20}}, {{"resource": "cpu", "work": 0.3}}]}}]}})";
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{}, {}]}})", fmt::format(fmt::runtime(job), "a"),
                                                  fmt::format(fmt::runtime(job), "b")));
  ASSERT_EQ(ids.size(), 2u);
  for (const std::string& id : ids) {
    const Result r = Wait(address, id, 60);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0.out");
  }
  // From the exported tasks: all four ran on n0, and b's first task started
  // after a's last ended (a holds the node's one container until it ends).
  const fs::path out = dir_ / "results";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  std::istringstream rows(Slurp(out / "tasks.csv"));
  std::string header;
  std::getline(rows, header);
  ASSERT_THAT(header, ::testing::StartsWith("job,stage,task,attempt,machine,ready,start,end,outcome"));
  double a_end = 0, b_start = 1e18;
  int ok = 0;
  for (std::string line; std::getline(rows, line);) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    ASSERT_GE(f.size(), 9u) << line;
    ok += f[8] == "ok" ? 1 : 0;
    if (f[0] == "a") a_end = std::max(a_end, std::stod(f[7]));
    if (f[0] == "b") b_start = std::min(b_start, std::stod(f[6]));
  }
  EXPECT_EQ(ok, 4);
  EXPECT_GE(b_start, a_end);
}

}  // namespace
}  // namespace weft
