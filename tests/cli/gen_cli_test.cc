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

}  // namespace
}  // namespace weft
