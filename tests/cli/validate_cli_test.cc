// End-to-end tests of the weft binary (FORMATS.md section 3): exit codes and
// the one-line stdout / stderr contract, for `weft validate` and for bad
// usage. Runs the binary built by this tree (WEFT_BINARY) as a child process.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern char** environ;

namespace weft {
namespace {

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

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

class ValidateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "weft_cli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::string Slurp(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

  // Run executes weft with `args`, capturing stdout and stderr separately.
  Result Run(const std::vector<std::string>& args) {
    const std::string out_path = (dir_ / "stdout").string(), err_path = (dir_ / "stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> argv_strings = {WEFT_BINARY};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    Result result;
    pid_t pid = 0;
    const int spawn_error = posix_spawn(&pid, WEFT_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawn_error, 0) << "cannot run " WEFT_BINARY;
    if (spawn_error != 0) return result;
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << "weft did not exit normally; status " << status;
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    result.out = Slurp(out_path);
    result.err = Slurp(err_path);
    return result;
  }

  // ExpectBadInput checks the contract for bad input: exit 2, nothing on
  // stdout, exactly one line on stderr.
  void ExpectBadInput(const Result& r) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, StartsWith("error: "));
  }

  std::filesystem::path dir_;
};

TEST_F(ValidateCliTest, PrintsOneLineSummaryForGoodFile) {
  const std::string path = Write("good.json", kGoodWorkload);
  const Result r = Run({"validate", path});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, fmt::format("{}: ok: 1 jobs, 2 stages, 4 tasks, 4 machines, 4.0 cpu-seconds of work\n", path));
  EXPECT_EQ(r.err, "");
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
