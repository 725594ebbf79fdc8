// End-to-end test of idempotent submits (issue 34, finding 4): the scheduler
// killed with -9 in the middle of a large submission and started again with
// its own command line. `weft submit` sends the submission again under the
// same key when the scheduler is back, and ends with the ids; the scheduler
// has the jobs once, whether the first try had been journaled or not.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

class SubmitRetryTest : public RuntimeTest {};

TEST_F(SubmitRetryTest, ASubmitCutByASchedulerCrashIsSentAgainAndAddedOnce) {
  constexpr int kJobs = 30000;
  const std::vector<std::string> scheduler_args = {"scheduler", "--listen", "127.0.0.1:0", "--state",
                                                   (dir_ / "state").string(), "--nodes", "1"};
  SpawnWeftd(scheduler_args, dir_ / "s.out");
  ASSERT_TRUE(Until([&] { return fs::exists(dir_ / "state" / "address"); }));
  std::string address = Slurp(dir_ / "state" / "address");
  address.pop_back();
  SpawnWeftd({"node", "--scheduler", address, "--name", "n0", "--cpu", "1", "--mem", "1", "--work-dir",
              (dir_ / "n0").string()},
             dir_ / "n0.out");
  ASSERT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 1/1 up") != std::string::npos; }));
  std::string jobs;
  for (int j = 0; j < kJobs; ++j) {
    jobs += fmt::format(R"({}{{"name": "j{}", "arrival": 100000, "stages": [{{"name": "s", "tasks": 1, "duration": 1,
        "demand": {{"cpu": 1, "mem": 0.1}}}}]}})", j == 0 ? "" : ",", j);
  }
  // Jobs only: the client sends it without reading it through first.
  const std::string workload = Write("big.json", R"({"weft": 1, "jobs": [)" + jobs + "]}");

  // Killed once the scheduler has read most of the submission: while it
  // reads, parses (30,000 jobs take it about 0.4 s here) or journals it, or
  // has just answered. What it read: every thread's rchar (gRPC reads on
  // threads of its own, which the process's /proc io does not count).
  const auto read_bytes = [](pid_t pid) {
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(fmt::format("/proc/{}/task", pid), ec)) {
      std::ifstream io(task.path() / "io");
      for (std::string key; io >> key;) {
        uint64_t value = 0;
        io >> value;
        if (key == "rchar:") total += value;
      }
    }
    return total;
  };
  const uint64_t before = read_bytes(spawned_[0]);
  // `weft submit` in the background, its output to files.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (dir_ / "submit.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir_ / "submit.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> strings = {WEFT_BINARY, "submit", "--scheduler", address, workload};
  std::vector<char*> argv;
  for (std::string& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t submit = 0;
  ASSERT_EQ(posix_spawn(&submit, WEFT_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  ASSERT_TRUE(Until([&] { return read_bytes(spawned_[0]) - before > fs::file_size(workload) / 2; }));
  ASSERT_EQ(kill(spawned_[0], SIGKILL), 0);
  waitpid(spawned_[0], nullptr, 0);
  const bool journaled = Slurp(dir_ / "state" / "scheduler.log").find("accepted") != std::string::npos;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  SpawnWeftd(scheduler_args, dir_ / "s2.out");  // the same command line: the same port

  int status = 0;
  ASSERT_TRUE(Until([&] { return waitpid(submit, &status, WNOHANG) == submit; }));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << Slurp(dir_ / "submit.err");
  EXPECT_EQ(CountFileLines(dir_ / "submit.out"), kJobs);
  // The jobs are there once: the last id is kJobs - 1, and there is no job
  // kJobs (asked of the restarted scheduler: the answer may have come before the kill).
  EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address, std::to_string(kJobs - 1)}).exit_code == 0; }));
  const Result beyond = Run({"status", "--scheduler", address, std::to_string(kJobs)});
  EXPECT_EQ(beyond.exit_code, 2) << "a job past the submission's: it was added twice\n" << beyond.out;
  RecordProperty("journaled_before_the_kill", journaled ? "yes" : "no");
}

}  // namespace
}  // namespace weft
