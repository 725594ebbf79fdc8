// COBRA for real: `weft cluster up --policy cobra` on two 1-core, 2-GB nodes
// runs a job of four 0.25-core tasks in one reusable container at once. With
// the desire held at 1 (a period longer than the job) the job holds a single
// 1-core container, so four tasks running at the same time on one node are
// four tasks in that one container.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

std::vector<std::string> Fields(const std::string& row) {
  std::vector<std::string> out;
  std::istringstream in(row);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  return out;
}

TEST_F(RuntimeTest, CobraRunsSeveralTasksInOneContainerAtOnce) {
  const std::string address =
      Up(2, {"--policy", "cobra", "--param", "period=600", "--param", "response_time=0"}, "cluster-cobra");
  const auto ids = SubmitIds(address, Workload(R"({"name": "reuse", "stages": [
      {"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 0.25, "mem": 0.1}}]})"));
  ASSERT_EQ(ids.size(), 1u);
  const Result r = Wait(address, ids[0], 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = TaskRows(address);
  ASSERT_EQ(rows.size(), 4u);
  // tasks.csv: job,stage,task,attempt,machine,ready,start,end,outcome,...
  std::vector<std::string> machines;
  double last_start = 0, first_end = 1e18;
  for (const std::string& row : rows) {
    const auto f = Fields(row);
    ASSERT_GE(f.size(), 9u) << row;
    EXPECT_EQ(f[8], "ok") << row;
    machines.push_back(f[4]);
    last_start = std::max(last_start, std::stod(f[6]));
    first_end = std::min(first_end, std::stod(f[7]));
  }
  EXPECT_TRUE(std::all_of(machines.begin(), machines.end(), [&](const std::string& m) { return m == machines[0]; }));
  EXPECT_LT(last_start, first_end) << "the four tasks did not all run at once";
}

// Issue 14: Af's utilization comes from what the nodes measure, not from
// the declared demand. Two jobs each hold one 1-core container for a 1-core
// task for 5 s: one burns cpu, one sleeps. The simulator, which knows only
// the declared use, sees both at utilization 1 (and grows both desires);
// for real the sleeping job's measured utilization is near 0 from the
// second period on, so Af never grows its desire. The busy job's figure
// depends on how much cpu the loaded test machine gives it, so it is only
// compared with the idle one's.
TEST_F(RuntimeTest, CobraAfSeesTheUsageTheNodesMeasure) {
  const std::string address = Up(2, {"--policy", "cobra", "--param", "period=1", "--param", "response_time=0"},
                                 "cluster-af");
  SubmitIds(address, Workload(R"({"name": "busy", "stages": [{"name": "s", "tasks": 1, "duration": 5,
        "demand": {"cpu": 1, "mem": 0.1}, "command": "timeout 5 sh -c 'while :; do :; done'; exit 0"}]},
      {"name": "idle", "stages": [{"name": "s", "tasks": 1, "duration": 5,
        "demand": {"cpu": 1, "mem": 0.1}, "command": "sleep 5"}]})"));
  ASSERT_EQ(Wait(address, "0", 60).exit_code, 0);
  ASSERT_EQ(Wait(address, "1", 60).exit_code, 0);
  TaskRows(address);  // exports the results, series.csv among them
  // series.csv: time,series,job,value; per job, Af's values after its first period.
  std::map<std::string, std::vector<double>> utilization, desire;
  std::map<std::string, double> first_time;
  std::istringstream lines(Slurp(dir_ / "results" / "series.csv"));
  std::string line;
  std::getline(lines, line);
  ASSERT_EQ(line, "time,series,job,value");
  while (std::getline(lines, line)) {
    const auto f = Fields(line);
    ASSERT_EQ(f.size(), 4u) << line;
    const double time = std::stod(f[0]);
    if (!first_time.contains(f[2])) first_time[f[2]] = time;
    if (time == first_time[f[2]]) continue;  // the first period may hold the declared use until a sample came
    (f[1] == "utilization" ? utilization : desire)[f[2]].push_back(std::stod(f[3]));
  }
  ASSERT_GE(utilization["idle"].size(), 2u);
  ASSERT_GE(utilization["busy"].size(), 2u);
  const double idle = *std::max_element(utilization["idle"].begin(), utilization["idle"].end());
  const double busy = *std::max_element(utilization["busy"].begin(), utilization["busy"].end());
  EXPECT_LT(idle, 0.05) << "a sleeping task measured as using its declared core";
  EXPECT_GT(busy, 0.1);
  EXPECT_GT(busy, 5 * idle);
  for (double d : desire["idle"]) EXPECT_EQ(d, 1) << "Af grew an idle job's desire";
}

}  // namespace
}  // namespace weft
