// File: tests/cli/convert_cli_test.cc
//
// `weft convert --from alibaba-2018` end to end: the written workload is one
// the other commands accept, the summary line, and the bad-input contract
// (exit 2, one stderr line naming the file and line, no output file left).
#include <filesystem>
#include <string>

#include "cli_test_util.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

using ::testing::HasSubstr;

constexpr char kTrace[] =
    "M1,4,j_1,1,Terminated,100,102,100,0.2\n"
    "R2_1,2,j_1,1,Terminated,102,110,50,0.4\n"
    "M1,1,j_2,1,Running,150,151,100,0.2\n"
    "M1,1,j_3,1,Terminated,160,163,200,0.3\n";

class ConvertCliTest : public CliTest {};

TEST_F(ConvertCliTest, WritesAWorkloadTheOtherCommandsRead) {
  const std::string out = (dir_ / "w.json").string();
  const Result r = Run({"convert", "--from", "alibaba-2018", Write("batch_task.csv", kTrace), "-o", out,
                        "--machines", "2", "--machine-cpu", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("4 rows, 3 jobs: 1 skipped (1 with a task not Terminated, e.g. j_2 (line 3)), "
                               "2 usable, 0 too small, 2 written; 3 stages, 7 tasks to " + out));
  const auto doc = nlohmann::json::parse(Slurp(out));
  EXPECT_EQ(doc["cluster"]["machines"][0]["count"], 2);
  ASSERT_EQ(doc["jobs"].size(), 2u);
  EXPECT_EQ(doc["jobs"][1]["name"], "j_3");
  EXPECT_DOUBLE_EQ(doc["jobs"][1]["arrival"].get<double>(), 60.0);
  EXPECT_EQ(doc["jobs"][0]["stages"][1]["after"], nlohmann::json::array({"M1"}));
  const Result v = Run({"validate", out});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  const Result sim = Run({"sim", "-w", out, "-p", "fifo", "--out", (dir_ / "run").string()});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
}

TEST_F(ConvertCliTest, SamplesWithASeed) {
  const std::string in = Write("batch_task.csv", kTrace);
  const std::string a = (dir_ / "a.json").string(), b = (dir_ / "b.json").string();
  ASSERT_EQ(Run({"convert", "--from", "alibaba-2018", in, "-o", a, "--jobs", "1", "--seed", "5"}).exit_code, 0);
  ASSERT_EQ(Run({"convert", "--from", "alibaba-2018", in, "-o", b, "--jobs", "1", "--seed", "5"}).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(Slurp(a))["jobs"].size(), 1u);
  EXPECT_EQ(Slurp(a), Slurp(b));
}

TEST_F(ConvertCliTest, BadInputExitsTwoAndWritesNothing) {
  const std::string out = (dir_ / "w.json").string();
  const std::string good = Write("good.csv", kTrace);
  Result r = Run({"convert", "--from", "alibaba-2018", Write("bad.csv", std::string(kTrace) + "M9,x,j_4,1,Terminated,0,1,100,0.2\n"),
                  "-o", out});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("bad.csv:5: instance_num \"x\" is not a number"));
  ExpectBadInput(Run({"convert", "--from", "google-2011", good, "-o", out}));
  ExpectBadInput(Run({"convert", "--from", "alibaba-2018", (dir_ / "missing.csv").string(), "-o", out}));
  ExpectBadInput(Run({"convert", "--from", "alibaba-2018", good, "-o", out, "--machines", "0"}));
  r = Run({"convert", "--from", "alibaba-2018", good, "-o", out, "--min-tasks", "100"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("no job to write"));
  ExpectBadInput(Run({"convert", "--from", "alibaba-2018", good}));  // no --out
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
}

}  // namespace
}  // namespace weft
