// `weft status --out` writes phases.csv for a phased workload run for real
// (issue 12 §4), as `weft sim --out` does (docs/results.md): one row per
// phase of every attempt, from the scheduler's phase records.
#include <map>
#include <sstream>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

TEST_F(RuntimeTest, StatusOutWritesEachPhaseOfAPhasedRunInOrder) {
  const std::string address = Up(1);
  SubmitIds(address, Workload(R"({"name": "phased", "stages": [
      {"name": "p", "tasks": 2, "demand": {"cpu": 1, "mem": 0.1},
       "phases": [{"resource": "cpu", "work": 0.05}, {"resource": "disk", "work": 1}, {"resource": "net", "work": 1}]},
      {"name": "q", "tasks": 1, "duration": 0.01, "demand": {"cpu": 1, "mem": 0.1}, "after": ["p"]}]})"));
  ASSERT_EQ(Wait(address, "0", 60).exit_code, 0);
  const fs::path out = dir_ / "results";
  const Result r = Run({"status", "--scheduler", address, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = CsvRows(Slurp(out / "phases.csv"));
  ASSERT_EQ(rows.size(), 7u) << Slurp(out / "phases.csv");  // header + 2 tasks x 3 phases
  EXPECT_EQ(rows[0], (std::vector<std::string>{"job", "stage", "task", "attempt", "phase", "resource", "machine",
                                               "start", "end", "held", "completed"}));
  std::map<std::string, std::vector<std::vector<std::string>>> by_task;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 11u);
    EXPECT_EQ(rows[i][0], "phased");
    EXPECT_EQ(rows[i][1], "p");
    EXPECT_EQ(rows[i][3], "0");
    EXPECT_EQ(rows[i][6], "node-0");
    EXPECT_EQ(rows[i][10], "1");
    EXPECT_LE(std::stod(rows[i][7]), std::stod(rows[i][8]));
    if (i > 1) {
      EXPECT_LE(std::stod(rows[i - 1][8]), std::stod(rows[i][8])) << "rows are in the order phases ended";
    }
    by_task[rows[i][2]].push_back(rows[i]);
  }
  ASSERT_EQ(by_task.size(), 2u);
  for (const auto& [task, phases] : by_task) {
    ASSERT_EQ(phases.size(), 3u);
    const char* resources[] = {"cpu", "disk", "net"};
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(phases[k][4], std::to_string(k)) << "task " << task;
      EXPECT_EQ(phases[k][5], resources[k]) << "task " << task;
      if (k > 0) {
        EXPECT_LE(std::stod(phases[k - 1][8]), std::stod(phases[k][7])) << "task " << task;
      }
    }
  }
  // The tasks' rows are there as before.
  EXPECT_EQ(TaskRows(address).size(), 3u);
}

TEST_F(RuntimeTest, StatusOutWritesNoPhasesFileForAWorkloadWithoutPhases) {
  const std::string address = Up(1);
  SubmitIds(address, Workload(R"({"name": "plain", "stages": [
      {"name": "s", "tasks": 1, "duration": 0.01, "demand": {"cpu": 1, "mem": 0.1}}]})"));
  ASSERT_EQ(Wait(address, "0", 60).exit_code, 0);
  const fs::path out = dir_ / "results";
  ASSERT_EQ(Run({"status", "--scheduler", address, "--out", out.string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(out / "tasks.csv"));
  EXPECT_FALSE(fs::exists(out / "phases.csv"));
}

}  // namespace
}  // namespace weft
