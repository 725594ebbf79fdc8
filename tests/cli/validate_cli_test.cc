// End-to-end tests of the weft binary (FORMATS.md section 3): exit codes and
// the one-line stdout / stderr contract, for `weft validate` and for bad
// usage. Runs the binary built by this tree (WEFT_BINARY) as a child process.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ValidateCliTest = CliTest;

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A valid workload: 4 machines, one job of two stages (2 + 2 tasks, 1 s each,
// 1 cpu), so 4 cpu-seconds of work.
constexpr const char* kGoodWorkload = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 4, "capacity": {"cpu": 4, "mem": 8}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1}},
    {"name": "b", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1}, "after": ["a"]}]}]
})";

TEST_F(ValidateCliTest, PrintsOneLineSummaryForGoodFile) {
  const std::string path = Write("good.json", kGoodWorkload);
  const Result r = Run({"validate", path});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, fmt::format("{}: ok: 1 jobs, 2 stages, 4 tasks, 4 machines, 4.0 cpu-seconds of work\n", path));
  EXPECT_EQ(r.err, "");
}

TEST_F(ValidateCliTest, SummarisesShuffleEdgesAndOverrides) {
  const std::string path = Write("mr.json", R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 4, "mem": 8, "net": 100}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "kind": "map", "tasks": 2, "duration": 1.0, "demands": [{"cpu": 1}, {"cpu": 2}]},
      {"name": "reduce", "kind": "reduce", "tasks": 1, "duration": 1.0, "demand": {"cpu": 1},
       "after": [{"stage": "map", "kind": "shuffle", "slowstart": 0.5, "shuffle_mb": 10}]}]}]})");
  const Result r = Run({"validate", path});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, fmt::format("{}: ok: 1 jobs, 2 stages, 3 tasks, 2 machines, 4.0 cpu-seconds of work; 1 shuffle "
                               "edges (slow start 0.5-0.5), 0 stages with profiled phases, 1 with per-task demands, "
                               "locality cost off\n",
                               path));
}

TEST_F(ValidateCliTest, SaysWhenTheLocalityCostIsOn) {
  std::string text = kGoodWorkload;
  text.replace(text.find("]},"), 3, R"(], "locality_cost": {"remote_factor": 2}},)");
  const std::string path = Write("local.json", text);
  const Result r = Run({"validate", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("{}: ok: 1 jobs, 2 stages, 4 tasks, 4 machines, 4.0 cpu-seconds of work; 0 shuffle "
                               "edges, 0 stages with profiled phases, 0 with per-task demands, locality cost on\n",
                               path));
}

// A jobs-only file (no cluster section) is what `weft submit` sends to a
// live cluster: validate checks every rule that does not need the nodes.
constexpr const char* kJobsOnly = R"({"weft": 1, "jobs": [{"name": "j", "user": "ann", "stages": [
    {"name": "a", "tasks": 2, "duration": 1.0, "demand": {"cpu": 64, "mem": 500}, "locality": [["n1"], ["n2"]]},
    {"name": "b", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1}, "after": ["a"]}]}]})";

TEST_F(ValidateCliTest, AcceptsAJobsOnlyFileAsSubmitDoes) {
  const std::string path = Write("jobs.json", kJobsOnly);
  const Result r = Run({"validate", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("{}: ok: 1 jobs, 2 stages, 4 tasks, jobs only (what fits is checked by the "
                               "scheduler against its nodes), 130.0 cpu-seconds of work\n",
                               path));
  EXPECT_EQ(r.err, "");
}

TEST_F(ValidateCliTest, ChecksAJobsOnlyFilesRules) {
  std::string text = kJobsOnly;
  text.replace(text.find(R"("after": ["a"])"), 14, R"("after": ["z"])");
  const std::string path = Write("jobs-bad.json", text);
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: job \"j\" stage \"b\": \"after\" names unknown stage \"z\"\n", path));
}

TEST_F(ValidateCliTest, ReportsAnErrorOfAFileWithAClusterAsBefore) {
  std::string text = kGoodWorkload;
  text.replace(text.find(R"("after": ["a"])"), 14, R"("after": ["z"])");
  const std::string path = Write("bad-after.json", text);
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: job \"j\" stage \"b\": \"after\" names unknown stage \"z\"\n", path));
}

TEST_F(ValidateCliTest, RejectsBadJson) {
  const std::string path = Write("bad.json", "{\"weft\": 1,\n");
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, StartsWith(fmt::format("error: {}: not valid JSON: ", path)));
}

TEST_F(ValidateCliTest, RejectsNumberBeyondDoubleAsBadInput) {
  std::string text = kGoodWorkload;
  text.replace(text.find("1.0"), 3, "1e999");
  const Result r = Run({"validate", Write("huge.json", text)});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("number overflow parsing '1e999'"));
}

TEST_F(ValidateCliTest, RejectsInvalidWorkloadNamingJobStageAndField) {
  std::string text = kGoodWorkload;
  text.replace(text.find("[\"a\"]"), 5, "[\"z\"]");
  const std::string path = Write("unknown_parent.json", text);
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: job \"j\" stage \"b\": \"after\" names unknown stage \"z\"\n", path));
}

TEST_F(ValidateCliTest, RejectsFormatsExampleVerbatim) {
  // See WorkloadReaderTest.FormatsExampleVerbatimFailsOnItsShortDurations.
  const Result r = Run({"validate", WEFT_TESTDATA_DIR "/formats_example.json"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("\"durations\" has 2 entries but the stage has 200 tasks"));
}

TEST_F(ValidateCliTest, RejectsEmptyFile) {
  const std::string path = Write("empty.json", "");
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: the file is empty\n", path));
}

TEST_F(ValidateCliTest, RejectsMissingFile) {
  const std::string path = (dir_ / "absent.json").string();
  const Result r = Run({"validate", path});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: no such file\n", path));
}

TEST_F(ValidateCliTest, RejectsDirectory) {
  const Result r = Run({"validate", dir_.string()});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: is a directory, not a workload file\n", dir_.string()));
}

TEST_F(ValidateCliTest, RejectsMissingArgument) {
  const Result r = Run({"validate"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("workload"));
}

TEST_F(ValidateCliTest, RejectsExtraArgument) {
  const Result r = Run({"validate", Write("good.json", kGoodWorkload), "extra"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("extra"));
}

TEST_F(ValidateCliTest, RejectsUnknownFlag) {
  ExpectBadInput(Run({"--frobnicate"}));
  ExpectBadInput(Run({"validate", "--frobnicate", Write("good.json", kGoodWorkload)}));
}

TEST_F(ValidateCliTest, RejectsUnknownSubcommand) { ExpectBadInput(Run({"frobnicate"})); }

TEST_F(ValidateCliTest, RejectsNoArguments) { ExpectBadInput(Run({})); }

TEST_F(ValidateCliTest, PrintsHelp) {
  const Result r = Run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("validate"));
  EXPECT_EQ(r.err, "");
  const Result sub = Run({"validate", "--help"});
  EXPECT_EQ(sub.exit_code, 0);
  EXPECT_THAT(sub.out, HasSubstr("workload"));
}

TEST_F(ValidateCliTest, PrintsVersion) {
  const Result r = Run({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "weft " WEFT_EXPECTED_VERSION "\n");
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace weft
