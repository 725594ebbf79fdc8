// File: tests/cli/bounds_cli_test.cc
//
// `weft bounds` end to end (FORMATS.md section 3): the CSV header and one
// row per job with hand-computed bounds, quoting of names, the bad-input
// contract; and the bound fields of a `weft sim` run's summary.json and
// jobs.csv (README's result definitions), hand-computed.
#include <string>

#include "cli_test_util.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

using ::testing::HasSubstr;

// One machine of 2 cpu. "chain": a (1 x 4 s, 1 cpu) then b (4 x 1 s, 1 cpu):
// CPLen 5, TWork 4, ModCP max(4 + 1, 4 + 2) = 6, NewLB 4 + 2 = 6.
// "x, y": one 3 s task of 2 cpu arriving at 1: every bound 3.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 4}}]},
  "jobs": [
    {"name": "chain", "stages": [
      {"name": "a", "tasks": 1, "duration": 4, "demand": {"cpu": 1}},
      {"name": "b", "tasks": 4, "duration": 1, "demand": {"cpu": 1}, "after": ["a"]}]},
    {"name": "x, y", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 3, "demand": {"cpu": 2}}]}]})";

class BoundsCliTest : public CliTest {};

TEST_F(BoundsCliTest, PrintsOneCsvRowPerJob) {
  const Result r = Run({"bounds", "--workload", Write("w.json", kWorkload)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "job,cplen,twork,modcp,newlb\n"
            "chain,5.000000,4.000000,6.000000,6.000000\n"
            "\"x, y\",3.000000,3.000000,3.000000,3.000000\n");
}

TEST_F(BoundsCliTest, BadInputExitsTwoWithOneLine) {
  ExpectBadInput(Run({"bounds", "--workload", (dir_ / "missing.json").string()}));
  ExpectBadInput(Run({"bounds", "--workload", Write("bad.json", R"({"weft": 1, "jobs": []})")}));
  ExpectBadInput(Run({"bounds"}));
}

TEST_F(BoundsCliTest, SimSummaryReportsRatiosToTheBounds) {
  const std::string out = (dir_ / "run").string();
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "-p", "fifo", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "run" / "summary.json"));
  ASSERT_TRUE(summary.contains("bounds"));
  const auto& b = summary["bounds"];
  // Workload bound: max(max(0 + 6, 1 + 3) - 0, (8 + 6) cpu-s / 2 cpu) = 7.
  EXPECT_DOUBLE_EQ(b["makespan_lb"].get<double>(), 7.0);
  EXPECT_DOUBLE_EQ(b["makespan_ratio"].get<double>(), summary["makespan"].get<double>() / 7.0);
  EXPECT_GE(b["min_job_ratio"].get<double>(), 1.0);
  EXPECT_LE(b["min_job_ratio"].get<double>(), b["median_job_ratio"].get<double>());
  EXPECT_LE(b["median_job_ratio"].get<double>(), b["max_job_ratio"].get<double>());
  const std::string jobs = Slurp(dir_ / "run" / "jobs.csv");
  EXPECT_THAT(jobs, ::testing::StartsWith("job,user,arrival,start,end,jct,outcome,newlb,newlb_ratio\n"));
  EXPECT_THAT(jobs, HasSubstr(",6.000000,"));  // chain's NewLB
}

}  // namespace
}  // namespace weft
