// End-to-end tests of the commands that run many simulations at once:
// `weft compare -j N` and `weft sweep`. The property that matters: running in
// parallel gives exactly the output of running one at a time (but for the
// wall-clock columns), and bad input writes nothing and exits 2.
#include <filesystem>
#include <sstream>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ParallelCliTest = CliTest;

// Three machines; jobs with a DAG, a comma in a name (CSV quoting) and enough
// tasks that random policies differ by seed.
constexpr const char* kWorkload = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 3, "rack_size": 1, "capacity": {"cpu": 2, "mem": 8}}]},
  "jobs": [
    {"name": "etl, nightly", "user": "alice", "stages": [
      {"name": "a", "tasks": 6, "duration": 1.0, "durations": [1, 2, 0.5, 1.5, 1, 3], "demand": {"cpu": 1, "mem": 1}},
      {"name": "b", "tasks": 3, "duration": 0.5, "demand": {"cpu": 2, "mem": 1}, "after": ["a"]}]},
    {"name": "adhoc", "user": "bob", "arrival": 0.5, "stages": [
      {"name": "x", "tasks": 5, "duration": 1.0, "durations": [1, 0.2, 0.7, 2, 1], "demand": {"cpu": 1, "mem": 1}}]}]
})";

// DropColumn removes the CSV column named `name` (no quoted commas before it).
std::string DropColumn(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string line, out;
  int column = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream l(line);
    while (std::getline(l, field, ',')) fields.push_back(field);
    if (column < 0) column = static_cast<int>(std::find(fields.begin(), fields.end(), name) - fields.begin());
    if (column < static_cast<int>(fields.size())) fields.erase(fields.begin() + column);
    for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
    out += "\n";
  }
  return out;
}

TEST_F(ParallelCliTest, CompareInParallelEqualsSerial) {
  const std::string w = Write("w.json", kWorkload);
  const std::string serial = (dir_ / "serial.csv").string(), parallel = (dir_ / "parallel.csv").string();
  const Result a = Run({"compare", "-w", w, "--policies", "all", "-j", "1", "--csv", serial});
  const Result b = Run({"compare", "-w", w, "--policies", "all", "-j", "3", "--csv", parallel});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.err, b.err);
  EXPECT_EQ(DropColumn(Slurp(serial), "wall_seconds"), DropColumn(Slurp(parallel), "wall_seconds"));
  EXPECT_GT(CountLines(Slurp(parallel)), 5);
}

TEST_F(ParallelCliTest, SweepInParallelEqualsSerial) {
  const std::string w = Write("w.json", kWorkload);
  const std::string w2 = Write("w2.json", kWorkload);
  auto sweep = [&](const std::string& out, const std::string& jobs) {
    return Run({"sweep", w, w2, "--policies", "fifo,random,sparrow", "--param", "sparrow:probe_ratio=1,2",
                "--seeds", "1..3", "--out", out, "-j", jobs});
  };
  const std::filesystem::path s = dir_ / "s", p = dir_ / "p";
  const Result a = sweep(s.string(), "1");
  const Result b = sweep(p.string(), "4");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(Slurp(s / "sweep.csv"), Slurp(p / "sweep.csv"));
  EXPECT_EQ(DropColumn(Slurp(s / "runs.csv"), "wall_seconds"), DropColumn(Slurp(p / "runs.csv"), "wall_seconds"));
  // 2 workloads x (fifo + random + sparrow at 2 probe ratios) = 8 configurations, x 3 seeds.
  EXPECT_EQ(CountLines(Slurp(p / "sweep.csv")), 1 + 8);
  EXPECT_EQ(CountLines(Slurp(p / "runs.csv")), 1 + 24);
  int dirs = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(s / "runs")) {
    if (e.path().filename() != "tasks.csv") continue;
    ++dirs;
    const auto rel = std::filesystem::relative(e.path(), s);
    EXPECT_EQ(Slurp(e.path()), Slurp(p / rel)) << rel;
    EXPECT_EQ(Slurp(e.path().parent_path() / "jobs.csv"), Slurp((p / rel).parent_path() / "jobs.csv")) << rel;
  }
  EXPECT_EQ(dirs, 24);
  EXPECT_TRUE(std::filesystem::exists(s / "runs/w/sparrow/probe_ratio=2/seed-3/summary.json"));
  EXPECT_TRUE(std::filesystem::exists(s / "runs/w2/fifo/seed-1/tasks.csv"));
}

TEST_F(ParallelCliTest, SweepTableHasMeanAndConfidenceInterval) {
  const std::string w = Write("w.json", kWorkload);
  const std::filesystem::path out = dir_ / "o";
  const Result r = Run({"sweep", w, "--policies", "random,fifo", "--seeds", "1,2,3,4", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = Slurp(out / "sweep.csv");
  EXPECT_THAT(table, ::testing::StartsWith("workload,policy,params,runs,runs_failed,avg_jct_mean,avg_jct_ci95,"));
  // fifo is deterministic whatever the seed: a zero-width interval.
  EXPECT_THAT(table, HasSubstr("\nw,fifo,,4,0,"));
  std::istringstream in(table);
  std::string header, random_row, fifo_row;
  std::getline(in, header);
  std::getline(in, random_row);
  std::getline(in, fifo_row);
  EXPECT_THAT(fifo_row, HasSubstr(",0,"));
}

TEST_F(ParallelCliTest, SweepRejectsBadInputAndWritesNothing) {
  const std::string w = Write("w.json", kWorkload);
  const std::string out = (dir_ / "no").string();
  ExpectBadInput(Run({"sweep", w, "--policies", "fifo,nope", "--out", out}));
  ExpectBadInput(Run({"sweep", w, "--param", "rho=1,2", "--out", out}));  // fifo has no rho
  ExpectBadInput(Run({"sweep", w, "--param", "estimate_noise=-1", "--out", out}));
  ExpectBadInput(Run({"sweep", w, "--param", "=1", "--out", out}));
  ExpectBadInput(Run({"sweep", w, "--seeds", "5..1", "--out", out}));
  ExpectBadInput(Run({"sweep", w, "--seeds", "1,x", "--out", out}));
  ExpectBadInput(Run({"sweep", (dir_ / "missing.json").string(), "--out", out}));
  EXPECT_FALSE(std::filesystem::exists(out)) << "bad input must write nothing";
}

}  // namespace
}  // namespace weft
