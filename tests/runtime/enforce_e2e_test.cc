// Reservations enforced on the nodes (issue 16, "For real"; docs/runtime.md,
// "Enforcement"), on a local cluster started by `weft cluster up`. Under
// ras, which overbooks nothing, a task's cgroup gets a cpu quota of its cpu
// demand and a memory limit of its memory demand: a built-in task burning 2
// cpu-seconds with a demand of half a core takes twice as long and is
// measured near half a core, and a task past its memory demand is killed by
// the kernel's OOM killer, which the scheduler's log says. Under fair-slots,
// which overbooks every resource, the same task is not limited. The limits
// need a writable cgroup hierarchy with the cpu (memory) controller (root);
// elsewhere the tests skip, saying so.
#include <sstream>

#include "nlohmann/json.hpp"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class EnforceTest : public RuntimeTest {
 protected:
  bool CpuLimits() { return NodeCpuLimits(cluster_ / "node-0"); }
  bool MemLimits() {
    for (const fs::path& d : NodeGroups(cluster_ / "node-0")) {
      if (fs::exists(d / "memory.limit_in_bytes") || fs::exists(d / "memory.max")) return true;
    }
    return false;
  }

  // BurnCores: runs one built-in task burning 2 cpu-seconds with a demand of
  // half a core under `policy` and returns the cores it was measured using
  // on average (tasks.csv's run length against its cpu-seconds, and the
  // export's measured cpu, summary.json's used over held). Records the task
  // groups' quotas seen while it ran in quotas_.
  double BurnCores(const std::vector<std::string>& policy, double* used_over_held) {
    const std::string address = Up(1, policy);
    if (!CpuLimits()) return -1;
    SubmitIds(address, Workload(R"({"name": "burn", "deadline": 60, "stages": [{"name": "s", "tasks": 1,
        "duration": 2, "demand": {"cpu": 0.5, "mem": 0.2}}]})"));
    Until([&] {
      for (double q : TaskQuotas(cluster_ / "node-0")) quotas_.push_back(q);
      return !quotas_.empty() || Run({"status", "--scheduler", address}).out.find("succeeded") != std::string::npos;
    });
    const Result r = Wait(address, "0", 60);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::vector<std::string> rows = TaskRows(address);
    EXPECT_EQ(rows.size(), 1u);
    if (rows.size() != 1) return -1;
    std::vector<std::string> f;
    std::istringstream in(rows[0]);
    for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
    const nlohmann::json summary = nlohmann::json::parse(Slurp(dir_ / "results" / "summary.json"));
    *used_over_held = summary["ue"]["cpu"].get<double>();
    return 2.0 / (std::stod(f[7]) - std::stod(f[6]));
  }

  std::vector<double> quotas_;
};

TEST_F(EnforceTest, RasLimitsATaskToItsCpuReservation) {
  double ue = 0;
  const double cores = BurnCores({"--policy", "ras", "--param", "period=1"}, &ue);
  if (cores < 0 && !CpuLimits()) GTEST_SKIP() << "no cgroup cpu controller here: " << Slurp(cluster_ / "node-0" / "node.log");
  // At most its half core (less only if the shared machine is busy).
  EXPECT_LE(cores, 0.58) << "a task of half a core ran faster";
  EXPECT_GT(cores, 0.3);
  EXPECT_LE(ue, 1.15) << "the export measured it using more cpu than it reserved";
  ASSERT_FALSE(quotas_.empty()) << "the task's group was never seen";
  EXPECT_NEAR(quotas_.front(), 0.5, 1e-9);
  EXPECT_THAT(Slurp(cluster_ / "node-0" / "node.log"), Not(HasSubstr("cannot be limited")));
}

TEST_F(EnforceTest, FairSlotsOverbooksEverythingSoDoesNotLimit) {
  double ue = 0;
  const double cores = BurnCores({"--policy", "fair-slots"}, &ue);
  if (cores < 0 && !CpuLimits()) GTEST_SKIP() << "no cgroup cpu controller here: " << Slurp(cluster_ / "node-0" / "node.log");
  EXPECT_GT(cores, 0.0);
  EXPECT_TRUE(quotas_.empty()) << "fair-slots overbooks everything, yet its task got a cpu quota of " << quotas_.front();
}

TEST_F(EnforceTest, ATaskPastItsMemoryReservationIsKilledByTheOomKillerAndSaysSo) {
  const std::string address = Up(1, {"--policy", "ras", "--param", "period=1"});
  if (!MemLimits()) GTEST_SKIP() << "no cgroup memory controller here: " << Slurp(cluster_ / "node-0" / "node.log");
  // `tail` holds 400 MB of a line with no end; the task reserved 50 MB.
  SubmitIds(address, Workload(R"({"name": "hog", "deadline": 60, "stages": [{"name": "s", "tasks": 1, "duration": 1,
      "demand": {"cpu": 0.5, "mem": 0.05}, "command": "head -c 400M /dev/zero | tail"}]})"));
  const Result r = Wait(address, "0", 60);
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_THAT(Slurp(cluster_ / "scheduler" / "scheduler.log"),
              HasSubstr("exit 137 killed by the kernel's OOM killer: over its memory reservation"));
}

}  // namespace
}  // namespace weft
