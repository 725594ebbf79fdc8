// File: tests/runtime/private_files_e2e_test.cc
//
// Private by default (issue 34, finding 7): what the daemons create (the
// journal, with every job's commands; the logs; task output; their folders)
// is readable by its owner only, unless weftd is told otherwise (--umask).
#include <sys/stat.h>

#include "runtime_e2e_fixture.h"

namespace weft {
namespace {

using PrivateFilesTest = RuntimeTest;

// Mode: the permission bits of `path` (not following a link), or -1.
int Mode(const fs::path& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return -1;
  return static_cast<int>(st.st_mode & 0777);
}

TEST_F(PrivateFilesTest, WhatTheDaemonsWriteIsTheOwnersOnly) {
  const std::string address = Up(1);
  ASSERT_FALSE(address.empty());
  SubmitIds(address, Workload(R"({"name": "echo", "stages": [{"name": "s", "tasks": 1, "duration": 0.1,
      "demand": {"cpu": 1, "mem": 0.1}, "command": "echo hello; echo oops >&2; touch made-by-the-task"}]})"));
  ASSERT_EQ(Wait(address, "0", 30).exit_code, 0);
  std::vector<fs::path> written = {cluster_ / "scheduler",
                                   cluster_ / "scheduler" / "journal.db",
                                   cluster_ / "scheduler" / "scheduler.log",
                                   cluster_ / "node-0",
                                   cluster_ / "node-0" / "node.log",
                                   cluster_ / "node-0" / "tasks",
                                   cluster_ / "node-0" / "made-by-the-task"};
  for (const auto& entry : fs::directory_iterator(cluster_ / "node-0" / "tasks")) written.push_back(entry.path());
  ASSERT_GE(written.size(), 9u) << "no task output (.out, .err)";
  for (const fs::path& path : written) {
    const int mode = Mode(path);
    ASSERT_GE(mode, 0) << path << " is missing";
    EXPECT_EQ(mode & 077, 0) << path << " has mode " << fmt::format("{:o}", mode);
  }
}

TEST_F(PrivateFilesTest, AnUmaskThatIsNotOctalIsRefused) {
  const Result r = RunProgram(WEFTD_BINARY, {"scheduler", "--umask", "999", "--state", (dir_ / "s").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, testing::HasSubstr("--umask"));
  EXPECT_FALSE(fs::exists(dir_ / "s"));  // refused before anything was made
}

TEST_F(PrivateFilesTest, AGivenUmaskIsUsed) {
  const fs::path state = dir_ / "state";
  SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", state.string(), "--umask", "022"}, dir_ / "s.out");
  ASSERT_TRUE(Until([&] { return fs::exists(state / "address"); }));
  EXPECT_EQ(Mode(state / "journal.db") & 077, 044);
}

}  // namespace
}  // namespace weft
