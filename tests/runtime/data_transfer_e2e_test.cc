// Real bytes between nodes (docs/runtime.md, "Bytes between nodes"): a task
// placed off its input's node reads the input from it first; a built-in net
// phase reads its bytes from the data port of the node holding its task's
// input, or from its own node's when no other node holds it; a killed
// attempt's transfer stops; a shuffle copies its parents' output from their
// node before the reducer starts. The data ports' log lines count the
// bytes each node served.
#include <chrono>
#include <regex>
#include <thread>
#include <sstream>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

class DataTransferTest : public RuntimeTest {
 protected:
  // Cluster: a fifo scheduler and two nodes: n0 with 2 cores, n1 with 1, so
  // a task that needs 2 cores runs on n0 whatever its locality says.
  std::string Cluster() {
    const std::string address = SpawnScheduler({"--nodes", "2", "--policy", "fifo", "--heartbeat", "0.1"});
    for (int n = 0; n < 2; ++n) {
      SpawnWeftd({"node", "--scheduler", address, "--name", fmt::format("n{}", n), "--cpu", n == 0 ? "2" : "1",
                  "--mem", "2", "--work-dir", (dir_ / fmt::format("n{}", n)).string()},
                 dir_ / fmt::format("n{}.out", n));
    }
    EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 2/2 up") != std::string::npos; }));
    return address;
  }

  // Served: the bytes node `node`'s data port logged serving, transfer by
  // transfer ("served B of N bytes").
  std::vector<uint64_t> Served(const std::string& node) {
    std::vector<uint64_t> served;
    const std::string log = Slurp(dir_ / node / "node.log");
    static const std::regex line(R"(data port: transfer \d+ to \S+: served (\d+) of (\d+) bytes)");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it) {
      served.push_back(std::stoull((*it)[1]));
    }
    return served;
  }

  // NetJob: one task needing 2 cores (so on n0) with one net phase of `mb`,
  // its input held on `holder` (none: no locality).
  static std::string NetJob(double mb, const std::string& holder) {
    const std::string locality = holder.empty() ? "" : fmt::format(R"(, "input_mb": 1, "locality": [["{}"]])", holder);
    return fmt::format(R"({{"weft": 1, "jobs": [{{"name": "net", "stages": [
      {{"name": "s", "tasks": 1, "demand": {{"cpu": 2, "mem": 0.2, "net": 10}}{0},
        "phases": [{{"resource": "net", "work": {1}}}]}}]}}]}})",
                       locality, mb);
  }
};

TEST_F(DataTransferTest, ATaskReadsItsInputAndItsNetPhaseFromThePeerHoldingIt) {
  const std::string address = Cluster();
  ASSERT_EQ(SubmitIds(address, NetJob(32, "n1")), std::vector<std::string>{"0"});
  const Result r = Wait(address, "0", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0" / "node.log");
  // Its 1 MB of input was read from n1 first (a remote read), then the
  // phase's 32 MB crossed n1's data port, all of them; none came from n0's.
  EXPECT_EQ(Served("n1"), (std::vector<uint64_t>{1'000'000, 32'000'000})) << Slurp(dir_ / "n1" / "node.log");
  EXPECT_THAT(Served("n0"), ::testing::IsEmpty());
}

TEST_F(DataTransferTest, ANetPhaseWithNoPeerReadsThroughItsOwnDataPort) {
  const std::string address = Cluster();
  ASSERT_EQ(SubmitIds(address, NetJob(16, "")), std::vector<std::string>{"0"});
  const Result r = Wait(address, "0", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0" / "node.log");
  EXPECT_EQ(Served("n0"), std::vector<uint64_t>{16'000'000}) << Slurp(dir_ / "n0" / "node.log");
  EXPECT_THAT(Served("n1"), ::testing::IsEmpty());
}

TEST_F(DataTransferTest, AKilledAttemptStopsItsTransfer) {
  const std::string address = Cluster();
  // A profiled phase reading 4 MB/s from n1 for 20 s (80 MB), cancelled
  // after about a second.
  ASSERT_EQ(SubmitIds(address, R"({"weft": 1, "jobs": [{"name": "slow", "stages": [
      {"name": "s", "tasks": 1, "demand": {"cpu": 2, "mem": 0.2, "net": 10}, "input_mb": 1, "locality": [["n1"]],
       "phases": [{"duration": 20, "demand": {"cpu": 0.1, "mem": 0.2, "net": 4}, "usage": {"net": 4}}]}]}]})"),
            std::vector<std::string>{"0"});
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // fifo starts it at once
  ASSERT_EQ(Run({"cancel", "--scheduler", address, "0"}).exit_code, 0);
  // n1 logs the transfer cut short, well below its 80 MB.
  // (After its 1 MB input read, served whole.)
  ASSERT_TRUE(Until([&] { return Served("n1").size() == 2; })) << Slurp(dir_ / "n1" / "node.log");
  const std::vector<uint64_t> served = Served("n1");
  EXPECT_EQ(served[0], 1'000'000u);
  EXPECT_LT(served[1], 40'000'000u);
  EXPECT_THAT(Slurp(dir_ / "n1" / "node.log"), ::testing::HasSubstr("(cut short)"));
}

TEST_F(DataTransferTest, AShuffleCopiesItsParentsOutputFromTheirNodeBeforeTheReducerStarts) {
  // n0: 2 cores, 1 GB; n1: 1 core, 2 GB. The maps (1.5 GB) run on n1, the
  // reducer (2 cores) on n0, so each map's 300 MB of shuffle output crosses
  // n1's data port to n0 before the reducer runs; the reducer counts n1's
  // served transfers as it starts.
  const std::string address = SpawnScheduler({"--nodes", "2", "--policy", "fifo", "--heartbeat", "0.1"});
  for (int n = 0; n < 2; ++n) {
    SpawnWeftd({"node", "--scheduler", address, "--name", fmt::format("n{}", n), "--cpu", n == 0 ? "2" : "1",
                "--mem", n == 0 ? "1" : "2", "--work-dir", (dir_ / fmt::format("n{}", n)).string()},
               dir_ / fmt::format("n{}.out", n));
  }
  ASSERT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 2/2 up") != std::string::npos; }));
  const fs::path seen = WorkDir() / "seen";
  ASSERT_EQ(SubmitIds(address, fmt::format(R"({{"weft": 1, "jobs": [{{"name": "mr", "stages": [
      {{"name": "map", "tasks": 2, "duration": 0.1, "demand": {{"cpu": 1, "mem": 1.5, "net": 10}}}},
      {{"name": "reduce", "tasks": 1, "duration": 0.1, "demand": {{"cpu": 2, "mem": 0.5, "net": 10}},
        "after": [{{"stage": "map", "kind": "shuffle", "shuffle_mb": 300}}],
        "command": "grep -c 'data port: transfer .* served' {0} > {1}"}}]}}]}})",
                                           (dir_ / "n1" / "node.log").string(), seen.string())),
            std::vector<std::string>{"0"});
  const Result r = Wait(address, "0", 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(dir_ / "n0" / "node.log");
  // 300 MB per map task, all from n1, none from n0 (the reducer's own node).
  uint64_t total = 0;
  for (const uint64_t b : Served("n1")) total += b;
  EXPECT_EQ(total, 600'000'000u) << Slurp(dir_ / "n1" / "node.log");
  EXPECT_THAT(Served("n0"), ::testing::IsEmpty());
  // The reducer started after the copy ended: it saw n1's transfers logged.
  EXPECT_GE(std::stoi(Slurp(seen)), 1) << "the reducer ran before its shuffle copy was done";
}

}  // namespace
}  // namespace weft
