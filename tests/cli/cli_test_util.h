// File: tests/cli/cli_test_util.h
//
// CliTest: a fixture for end-to-end tests of the weft binary (WEFT_BINARY):
// a temporary directory, Write() for fixtures, Run() to execute weft with
// stdout and stderr captured separately, and ExpectBadInput() for the
// bad-input contract of FORMATS.md section 3 (exit 2, one stderr line).
#pragma once

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

#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern char** environ;

namespace weft {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline int CountLines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

class CliTest : public ::testing::Test {
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
  Result Run(const std::vector<std::string>& args) { return RunProgram(WEFT_BINARY, args); }

  // RunProgram executes `binary` with `args` and waits for it.
  Result RunProgram(const std::string& binary, const std::vector<std::string>& args) {
    const std::string out_path = (dir_ / "stdout").string(), err_path = (dir_ / "stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> argv_strings = {binary};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    Result result;
    pid_t pid = 0;
    const int spawn_error = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawn_error, 0) << "cannot run " << binary;
    if (spawn_error != 0) return result;
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << binary << " did not exit normally; status " << status;
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
    EXPECT_THAT(r.err, ::testing::StartsWith("error: "));
  }

  std::filesystem::path dir_;
};

}  // namespace weft
