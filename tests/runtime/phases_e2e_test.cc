// Phases run for real (issue 12 §4): a phased workload on a local cluster
// whose node agents control phases (the test-only policy test-phase-queues,
// in the test build of weftd), with each phase started by the agent on its
// node and run there: command phases log their order, built-in phases burn
// cpu, write and read a scratch file, and move bytes over loopback.
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class PhasesTest : public RuntimeTest {
 protected:
  // Cluster: a scheduler running test-phase-queues and two nodes in racks 0 and 3.
  std::string Cluster() {
    const fs::path state = dir_ / "state";
    SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", state.string(), "--nodes", "2", "--policy",
                "test-phase-queues", "--heartbeat", "0.1"},
               dir_ / "s.out", WEFTD_TEST_POLICIES_BINARY);
    EXPECT_TRUE(Until([&] { return fs::exists(state / "address"); }));
    std::string address = Slurp(state / "address");
    address.pop_back();
    for (int n = 0; n < 2; ++n) {
      SpawnWeftd({"node", "--scheduler", address, "--name", fmt::format("n{}", n), "--cpu", "2", "--mem", "2",
                  "--rack", n == 0 ? "0" : "3", "--work-dir", (dir_ / fmt::format("n{}", n)).string()},
                 dir_ / fmt::format("n{}.out", n), WEFTD_TEST_POLICIES_BINARY);
    }
    EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 2/2 up") != std::string::npos; }));
    return address;
  }
};

TEST_F(PhasesTest, TheNodeAgentStartsEachPhaseInOrderAndBuiltinPhasesDoRealWork) {
  const std::string address = Cluster();
  const fs::path work = WorkDir();
  // Stage c: command phases, each appending "task phase resource" to a log.
  // Stage b (after c): built-in phases: 0.2 s of cpu, a 16 MB scratch file
  // written and read back, 64 MB over loopback.
  const auto ids = SubmitIds(address, fmt::format(R"({{"weft": 1, "cluster": {{"machines": [{{"name": "x",
      "capacity": {{"cpu": 2, "mem": 2, "disk": 1000, "net": 1000}}}}]}}, "jobs": [{{"name": "phased", "stages": [
    {{"name": "c", "tasks": 4, "demand": {{"cpu": 1, "mem": 0.2, "disk": 10, "net": 10}},
      "phases": [{{"resource": "disk", "work": 1}}, {{"resource": "cpu", "work": 0.05}}, {{"resource": "net", "work": 1}}],
      "command": "echo {{task}} $WEFT_PHASE $WEFT_PHASE_RESOURCE >> {0}/phases.log; echo $WEFT_PHASE_RESOURCE begin >> queues.log; sleep 0.05; echo $WEFT_PHASE_RESOURCE end >> queues.log"}},
    {{"name": "b", "tasks": 2, "demand": {{"cpu": 1, "mem": 0.2, "disk": 10, "net": 10}}, "after": ["c"],
      "phases": [{{"resource": "cpu", "work": 0.2}}, {{"resource": "disk", "work": 16}}, {{"resource": "net", "work": 64}}]}}]}}]}})",
                                                work.string()));
  ASSERT_EQ(ids, std::vector<std::string>{"0"});
  const Result r = Wait(address, "0", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0" / "node.log");

  // Every task ran its three phases once, in order, each with its resource.
  std::map<int, std::vector<std::string>> seen;
  std::istringstream lines(Slurp(work / "phases.log"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    int task = -1;
    std::string phase, resource;
    fields >> task >> phase >> resource;
    seen[task].push_back(phase + ":" + resource);
  }
  ASSERT_EQ(seen.size(), 4u);
  for (const auto& [task, phases] : seen) {
    EXPECT_EQ(phases, (std::vector<std::string>{"0:disk", "1:cpu", "2:net"})) << "task " << task;
  }
  // On each node (a task runs in its node's work dir), at most one phase of
  // a resource ran at a time: the agent's per-resource queues ordered them.
  int logged = 0;
  for (const char* node : {"n0", "n1"}) {
    std::map<std::string, int> running;
    std::istringstream events(Slurp(dir_ / node / "queues.log"));
    for (std::string resource, what; events >> resource >> what;) {
      ++logged;
      running[resource] += what == "begin" ? 1 : -1;
      EXPECT_LE(running[resource], 1) << node << ": two " << resource << " phases at once";
    }
  }
  EXPECT_EQ(logged, 4 * 3 * 2);  // a begin and an end per phase of each task
  // The disk phases removed their scratch files.
  for (const char* node : {"n0", "n1"}) {
    if (fs::exists(dir_ / node / "scratch")) {
      EXPECT_TRUE(fs::is_empty(dir_ / node / "scratch")) << node;
    }
  }
  // What the tasks used is measured on the nodes: cpu, storage and network
  // traffic all show in the exported summary's `used`.
  const fs::path out = dir_ / "results";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  const nlohmann::json summary = nlohmann::json::parse(Slurp(out / "summary.json"));
  ASSERT_TRUE(summary.contains("used")) << summary.dump();
  for (const char* r : {"cpu", "disk", "net"}) EXPECT_GT(summary["used"][r].get<double>(), 0.0) << r << summary.dump();
  EXPECT_THAT(Slurp(dir_ / "state" / "scheduler.log"), HasSubstr("(rack 3)"));
}

}  // namespace
}  // namespace weft
