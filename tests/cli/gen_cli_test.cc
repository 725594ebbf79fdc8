// End-to-end tests of `weft gen mapreduce`: it writes a workload that
// `weft validate` accepts and prints one summary line; a bad flag exits 2
// with one stderr line naming it and writes nothing.
#include <filesystem>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_test_util.h"

namespace weft {
namespace {

using GenCliTest = CliTest;

TEST_F(GenCliTest, WritesAValidMapReduceWorkload) {
  const std::string path = (dir_ / "mr.json").string();
  const Result r = Run({"gen", "mapreduce", "-o", path, "--jobs", "4", "--machines", "6", "--rack-size", "3",
                        "--max-input-mb", "300", "--rack-mbps", "100", "--cross-rack-mbps", "50", "--seed", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith(fmt::format("{}: 4 jobs, 8 stages, ", path)));
  EXPECT_THAT(r.out, ::testing::EndsWith(" tasks, 6 machines, locality cost on\n"));
  const Result v = Run({"validate", path});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_THAT(v.out, ::testing::EndsWith("locality cost on\n"));
}

TEST_F(GenCliTest, RefusesABadFlagAndWritesNothing) {
  const std::string path = (dir_ / "mr.json").string();
  const Result r = Run({"gen", "mapreduce", "-o", path, "--slowstart", "1.5"});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, "error: --slowstart: must be a fraction in (0, 1]\n");
  EXPECT_FALSE(std::filesystem::exists(path));
}

// The example of docs/workload-format.md, "MapReduce job specs".
constexpr const char* kDocSpec = R"({"classes": {
   "sort": {"map": {"demand": {"cpu": 0.6, "mem": 0.5, "disk": 45}},
            "reduce": {"tasks": 20, "slowstart": 0.05,
                       "phases": [{"name": "shuffle", "share": 0.05, "demand": {"disk": 0.75}},
                                  {"name": "reduce", "share": 0.95, "demand": {"cpu": 0.4, "mem": 1.2, "disk": 50}}]}},
   "grep": {"map": {"demand": {"cpu": 1, "mem": 1}}}},
 "jobs": [{"name": "J1-sort-90g", "class": "sort", "arrival": 0, "deadline": 3000, "maps": 703,
           "map_s": 97.222, "reduce_s": 750},
          {"name": "g", "class": "grep", "arrival": 5, "user": "ann", "maps": 4, "map_s": 2}]})";

TEST_F(GenCliTest, WritesTheJobsOfASpecOnTheFlagsCluster) {
  const std::string path = (dir_ / "ras.json").string();
  const Result r = Run({"gen", "mapreduce", "-o", path, "--spec", Write("spec.json", kDocSpec), "--machines", "20",
                        "--cores", "2", "--mem-gb", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("{}: 2 jobs, 3 stages, 727 tasks, 20 machines, locality cost off\n", path));
  const Result v = Run({"validate", path});
  EXPECT_EQ(v.exit_code, 0) << v.err;
}

TEST_F(GenCliTest, RefusesABadSpecNamingItsFieldAndWritesNothing) {
  const std::string path = (dir_ / "ras.json").string();
  const std::string spec = Write("bad.json", R"({"classes": {"c": {"map": {"demand": {"cpu": 1}}}},
      "jobs": [{"name": "j", "class": "d", "arrival": 0, "maps": 1, "map_s": 1}]})");
  Result r = Run({"gen", "mapreduce", "-o", path, "--spec", spec});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: jobs[0].class: no class \"d\"\n", spec));
  EXPECT_FALSE(std::filesystem::exists(path));
  // A profile no machine can hold: the reader's refusal, still exit 2.
  const std::string big = Write("big.json", R"({"classes": {"c": {"map": {"demand": {"cpu": 64}}}},
      "jobs": [{"name": "j", "class": "c", "arrival": 0, "maps": 1, "map_s": 1}]})");
  r = Run({"gen", "mapreduce", "-o", path, "--spec", big});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, ::testing::StartsWith(fmt::format("error: {}: the workload it gives is invalid: ", big)));
  EXPECT_FALSE(std::filesystem::exists(path));
  // The flags of drawn jobs do not go with a spec.
  r = Run({"gen", "mapreduce", "-o", path, "--spec", spec, "--jobs", "3"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path));
  r = Run({"gen", "mapreduce", "-o", path, "--spec", (dir_ / "missing.json").string()});
  ExpectBadInput(r);
  EXPECT_EQ(r.err, fmt::format("error: {}: cannot read\n", (dir_ / "missing.json").string()));
}

}  // namespace
}  // namespace weft
