// End-to-end tests of timeline.csv as `weft sim` and `weft compare --out`
// write it: the hand-checked run of docs/report.md, and, for several
// policies, the integral of the allocation equal to summary.json's
// utilization.
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"
#include "tests/metrics/timeline_rows.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// One machine of 4 cpu. Job a: two 1-cpu tasks of 3 s at 0; job b: one
// 2-cpu task of 2.5 s at 1 s. FIFO runs b at once (2 cpu are free), so the
// cpu held is 2 on [0, 1), 4 on [1, 3), 2 on [3, 3.5): at a 1 s step the
// bins hold 0.5, 1, 1, 0.5 (the last only 0.5 s long), and utilization =
// (2 x 3 + 2 x 2.5) / (4 x 3.5) = 11/14.
constexpr char kHandChecked[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 8}}]},
  "jobs": [
    {"name": "a", "arrival": 0, "stages": [{"name": "s", "tasks": 2, "duration": 3, "demand": {"cpu": 1, "mem": 1},
                                            "usage": {"cpu": 0.5, "mem": 1}}]},
    {"name": "b", "arrival": 1, "stages": [{"name": "s", "tasks": 1, "duration": 2.5, "demand": {"cpu": 2, "mem": 2}}]}
  ]})";

// Integral of column `c` over the bins, over the makespan: a utilization.
double Integrate(const std::vector<std::vector<double>>& rows, size_t c, double makespan) {
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double end = i + 1 < rows.size() ? rows[i + 1][0] : rows[0][0] + makespan;
    sum += rows[i][c] * (end - rows[i][0]);
  }
  return sum / makespan;
}

class TimelineCliTest : public CliTest {};

TEST_F(TimelineCliTest, HandCheckedRun) {
  const std::string w = Write("w.json", kHandChecked);
  const Result r = Run({"sim", "-w", w, "-p", "fifo", "--out", (dir_ / "run").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string header;
  const auto rows = ReadTimelineRows(Slurp(dir_ / "run/timeline.csv"), &header);
  EXPECT_EQ(header,
            "time,running,waiting,cpu_alloc,mem_alloc,disk_alloc,net_alloc,cpu_used,mem_used,disk_used,net_used");
  ASSERT_EQ(rows.size(), 4u);
  const double expected[4][4] = {{0, 2, 0, 0.5}, {1, 3, 0, 1}, {2, 3, 0, 1}, {3, 1, 0, 0.5}};
  for (size_t b = 0; b < 4; ++b) {
    for (size_t c = 0; c < 4; ++c) EXPECT_DOUBLE_EQ(rows[b][c], expected[b][c]) << "bin " << b << " column " << c;
  }
  EXPECT_DOUBLE_EQ(rows[0][7], 0.25);  // cpu used: 2 x 0.5 of 4
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "run/summary.json"));
  EXPECT_NEAR(Integrate(rows, 3, 3.5), 11.0 / 14.0, 1e-6);
  EXPECT_NEAR(Integrate(rows, 3, 3.5), summary["utilization"]["cpu"].get<double>(), 1e-6);
  EXPECT_NEAR(Integrate(rows, 4, 3.5), summary["utilization"]["mem"].get<double>(), 1e-6);
  EXPECT_NEAR(Integrate(rows, 7, 3.5), summary["used"]["cpu"].get<double>(), 1e-6);
}

TEST_F(TimelineCliTest, StepFlagSetsTheBins) {
  const std::string w = Write("w.json", kHandChecked);
  ASSERT_EQ(Run({"sim", "-w", w, "--out", (dir_ / "run").string(), "--timeline-step", "0.25"}).exit_code, 0);
  std::string header;
  EXPECT_EQ(ReadTimelineRows(Slurp(dir_ / "run/timeline.csv"), &header).size(), 14u);  // 3.5 s / 0.25 s
  ExpectBadInput(Run({"sim", "-w", w, "--out", (dir_ / "bad").string(), "--timeline-step", "0"}));
}

// Property over policies, including one that holds containers (executor)
// and the contention model: the timeline integrates to the summary's figures.
TEST_F(TimelineCliTest, CompareOutIntegratesToEachPolicysUtilization) {
  const std::string out = (dir_ / "cmp").string();
  const Result r = Run({"compare", "-w", WEFT_EXAMPLES_DIR "/tpch-small.json", "--policies", "fifo,executor,tetris",
                        "--model", "contention", "--out", out, "--timeline-step", "0.7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* policy : {"fifo", "executor", "tetris"}) {
    const std::filesystem::path run = dir_ / "cmp" / policy;
    ASSERT_TRUE(std::filesystem::exists(run / "tasks.csv")) << policy;
    const auto summary = nlohmann::json::parse(Slurp(run / "summary.json"));
    std::string header;
    const auto rows = ReadTimelineRows(Slurp(run / "timeline.csv"), &header);
    const double makespan = summary["makespan"].get<double>();
    ASSERT_GT(rows.size(), 1u) << policy;
    for (auto [column, key, kind] : {std::tuple{3, "cpu", "utilization"}, {4, "mem", "utilization"},
                                     {7, "cpu", "used"}, {8, "mem", "used"}}) {
      const double truth = summary[kind][key].get<double>();
      EXPECT_NEAR(Integrate(rows, column, makespan), truth, 1e-5 * std::max(1.0, truth)) << policy << " " << kind << " " << key;
    }
  }
}

// compare --out DIR/POLICY holds what `weft sim --out` writes for that
// policy, file for file (summary.json but for its wall time).
TEST_F(TimelineCliTest, CompareOutHoldsWhatSimWrites) {
  const std::string w = WEFT_EXAMPLES_DIR "/tpch-small.json";
  ASSERT_EQ(Run({"compare", "-w", w, "--policies", "fair,cp", "--out", (dir_ / "cmp").string()}).exit_code, 0);
  ASSERT_EQ(Run({"sim", "-w", w, "-p", "cp", "--out", (dir_ / "sim").string()}).exit_code, 0);
  for (const char* file : {"tasks.csv", "jobs.csv", "timeline.csv"}) {
    EXPECT_EQ(Slurp(dir_ / "cmp/cp" / file), Slurp(dir_ / "sim" / file)) << file;
  }
  auto summary = [&](const std::filesystem::path& path) {
    auto j = nlohmann::json::parse(Slurp(path));
    j.erase("wall_seconds");
    return j;
  };
  EXPECT_EQ(summary(dir_ / "cmp/cp/summary.json"), summary(dir_ / "sim/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "cmp/fair/timeline.csv"));
}

}  // namespace
}  // namespace weft
