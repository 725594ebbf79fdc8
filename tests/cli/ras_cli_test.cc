// End-to-end tests of ras and fair-slots through `weft`: both are listed
// with their parameters, `weft sim -p ras --out` writes series.csv (each
// job's utility per control cycle) while a policy that records nothing
// writes none, and a bad parameter is one stderr line and exit 2.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using RasCliTest = CliTest;

// A small MapReduce job on two machines, with a goal.
constexpr const char* kMapReduce = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "tt", "count": 2, "capacity": {"cpu": 2, "mem": 4, "disk": 100}}]},
  "jobs": [{"name": "sort", "deadline": 60, "stages": [
    {"name": "map", "tasks": 8, "duration": 5, "demand": {"cpu": 0.6, "mem": 0.5, "disk": 45}},
    {"name": "reduce", "tasks": 2, "duration": 5, "demand": {"cpu": 0.4, "mem": 1.2, "disk": 50}, "after": ["map"]}]}]
})";

TEST_F(RasCliTest, PoliciesListBothWithTheirParameters) {
  const Result ras = Run({"policies", "ras"});
  ASSERT_EQ(ras.exit_code, 0) << ras.err;
  for (const char* p : {"period", "max_rounds", "parallel_copies"}) EXPECT_THAT(ras.out, HasSubstr(p));
  const Result fair = Run({"policies", "fair-slots"});
  ASSERT_EQ(fair.exit_code, 0) << fair.err;
  for (const char* p : {"map_slots", "reduce_slots"}) EXPECT_THAT(fair.out, HasSubstr(p));
}

TEST_F(RasCliTest, RasWritesItsUtilitySeries) {
  const std::string w = Write("w.json", kMapReduce);
  const std::string out = (dir_ / "ras").string();
  const Result r = Run({"sim", "-w", w, "-p", "ras", "--param", "period=5", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string series = Slurp(dir_ / "ras" / "series.csv");
  EXPECT_THAT(series, StartsWith("time,series,job,value\n0.000000,utility,sort,"));
  EXPECT_GE(CountLines(series), 3);  // a cycle at 0 and every 5 s while the job runs
  EXPECT_FALSE(std::filesystem::exists(dir_ / "ras" / "series.csv.tmp"));

  const std::string plain = (dir_ / "fair-slots").string();
  ASSERT_EQ(Run({"sim", "-w", w, "-p", "fair-slots", "--out", plain}).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "fair-slots" / "tasks.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "fair-slots" / "series.csv"));
}

TEST_F(RasCliTest, BadParameterIsOneLineAndExitTwo) {
  const Result r = Run({"sim", "-w", Write("w.json", kMapReduce), "-p", "ras", "--param", "period=0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("period"));
  EXPECT_EQ(CountLines(r.err), 1);
}

}  // namespace
}  // namespace weft
