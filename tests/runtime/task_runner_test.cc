// Tests for runtime/node/task_runner.h: real processes (sh, sleep), so every
// wait is bounded and nothing asserts on how fast anything runs.
#include "runtime/node/task_runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/status.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "runtime/node/group_record.h"
#include "runtime/node/proc_usage.h"

namespace weft::runtime {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;
constexpr auto kPatience = std::chrono::seconds(20);  // bound on every wait; never reached when all is well

fs::path FreshDir(std::string_view name) {
  const fs::path dir = fs::path(testing::TempDir()) / fmt::format("weft_runner_{}_{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TaskSpec Command(uint64_t id, std::string command) {
  return TaskSpec{.id = id, .label = fmt::format("job-0-{}-0", id), .command = std::move(command)};
}

// WaitForExits polls wake_fd and reaps until `n` tasks have ended (or the
// patience runs out, which fails the test through the count).
std::vector<TaskExit> WaitForExits(TaskRunner& runner, size_t n) {
  std::vector<TaskExit> exits;
  const auto deadline = steady_clock::now() + kPatience;
  while (exits.size() < n && steady_clock::now() < deadline) {
    pollfd p{.fd = runner.wake_fd(), .events = POLLIN, .revents = 0};
    poll(&p, 1, 100);
    for (TaskExit& e : runner.Reap()) exits.push_back(std::move(e));
  }
  EXPECT_EQ(exits.size(), n);
  return exits;
}

TaskExit RunToEnd(TaskRunner& runner, const TaskSpec& spec) {
  EXPECT_TRUE(runner.Start(spec).ok());
  std::vector<TaskExit> exits = WaitForExits(runner, 1);
  return exits.empty() ? TaskExit{} : exits.front();
}

// A pid counts as gone when it no longer exists or is a zombie (it runs
// nothing; whether this container's init reaps it is not ours to test).
bool Gone(pid_t pid) {
  const std::optional<ProcStat> st = ReadProcStat(pid);
  return !st || st->state == 'Z';
}

bool WaitGone(pid_t pid) {
  const auto deadline = steady_clock::now() + kPatience;
  while (!Gone(pid)) {
    if (steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// ReadPids waits until `path` holds `n` pids (one a line), written by a task.
std::vector<pid_t> ReadPids(const fs::path& path, size_t n) {
  const auto deadline = steady_clock::now() + kPatience;
  for (;;) {
    std::istringstream in(ReadFile(path));
    std::vector<pid_t> pids;
    for (pid_t pid; in >> pid;) pids.push_back(pid);
    if (pids.size() >= n || steady_clock::now() > deadline) return pids;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(TaskRunnerTest, ExitCodesPropagate) {
  const fs::path dir = FreshDir("exit");
  TaskRunner runner(dir);
  EXPECT_EQ(RunToEnd(runner, Command(1, "exit 0")).exit_code, 0);
  const TaskExit three = RunToEnd(runner, Command(2, "exit 3"));
  EXPECT_EQ(three.id, 2u);
  EXPECT_EQ(three.exit_code, 3);
  EXPECT_FALSE(three.killed);
  EXPECT_FALSE(three.failed_to_start);
  EXPECT_EQ(runner.running(), 0u);
  fs::remove_all(dir);
}

// run_us covers the process's life (a lower bound the sleep guarantees; no
// upper bound, which would depend on the machine's speed).
TEST(TaskRunnerTest, AnExitSaysHowLongTheProcessRan) {
  const fs::path dir = FreshDir("run-us");
  TaskRunner runner(dir);
  EXPECT_GE(RunToEnd(runner, Command(1, "sleep 0.2")).run_us, 200'000);
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, FailingCommandReportsItsCode) {
  const fs::path dir = FreshDir("fail");
  TaskRunner runner(dir);
  EXPECT_EQ(RunToEnd(runner, Command(1, "false")).exit_code, 1);
  EXPECT_EQ(RunToEnd(runner, Command(2, "no-such-command-weft")).exit_code, 127);
  EXPECT_EQ(RunToEnd(runner, Command(3, "kill -TERM $$")).exit_code, 128 + SIGTERM);
  fs::remove_all(dir);
}

// What `weft status` shows of a failed task comes from here (issue 32 §4).
TEST(TaskRunnerTest, AFailedCommandReportsItsSignalAndStderrTail) {
  const fs::path dir = FreshDir("why");
  TaskRunner runner(dir);
  const TaskExit seven = RunToEnd(runner, Command(1, "echo early >&2; seq 1 20 >&2; echo boom >&2; exit 7"));
  EXPECT_EQ(seven.exit_code, 7);
  EXPECT_EQ(seven.signal, 0);
  EXPECT_EQ(seven.stderr_tail, "17\n18\n19\n20\nboom");  // the last five lines only
  const TaskExit signalled = RunToEnd(runner, Command(2, "echo dying >&2; kill -TERM $$"));
  EXPECT_EQ(signalled.exit_code, 128 + SIGTERM);
  EXPECT_EQ(signalled.signal, SIGTERM);
  EXPECT_EQ(signalled.stderr_tail, "dying");
  // Success needs no reason: its stderr is not read.
  EXPECT_EQ(RunToEnd(runner, Command(3, "echo fine >&2")).stderr_tail, "");
  // Killed by the runner (a cancel): the reason is the kill, not its output.
  ASSERT_TRUE(runner.Start(Command(4, "echo before >&2; sleep 30")).ok());
  runner.Kill(4);
  const std::vector<TaskExit> killed = WaitForExits(runner, 1);
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].stderr_tail, "");
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, OutputIsCapturedToTheTaskFiles) {
  const fs::path dir = FreshDir("output");
  TaskRunner runner(dir);
  const TaskSpec spec = Command(7, "echo hello; echo oops >&2; read x || echo no-stdin");
  EXPECT_EQ(RunToEnd(runner, spec).exit_code, 0);
  EXPECT_EQ(runner.StdoutPath(spec), dir / "tasks" / "job-0-7-0.out");
  EXPECT_EQ(ReadFile(runner.StdoutPath(spec)), "hello\nno-stdin\n");
  EXPECT_EQ(ReadFile(runner.StderrPath(spec)), "oops\n");
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, ACommandSeesItsNamesInTheEnvironment) {
  const fs::path dir = FreshDir("env");
  setenv("WEFT_STAGE", "from-the-daemon", 1);  // the task's own value wins
  setenv("WEFT_RUNNER_TEST_KEPT", "kept", 1);
  TaskRunner runner(dir);
  TaskSpec spec = Command(1, "echo \"$WEFT_JOB|$WEFT_STAGE|$WEFT_TASK|$WEFT_RUNNER_TEST_KEPT\"");
  spec.env = {{"WEFT_JOB", "a;rm -rf /"}, {"WEFT_STAGE", "`touch x`"}, {"WEFT_TASK", "3"}};
  EXPECT_EQ(RunToEnd(runner, spec).exit_code, 0);
  EXPECT_EQ(ReadFile(runner.StdoutPath(spec)), "a;rm -rf /|`touch x`|3|kept\n");
  EXPECT_FALSE(fs::exists(dir / "x"));
  unsetenv("WEFT_STAGE");
  unsetenv("WEFT_RUNNER_TEST_KEPT");
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, ACommandTooLongToExecSaysWhy) {
  const fs::path dir = FreshDir("e2big");
  TaskRunner runner(dir);
  const TaskSpec spec = Command(1, "echo " + std::string(200'000, 'x'));  // over MAX_ARG_STRLEN
  EXPECT_EQ(RunToEnd(runner, spec).exit_code, 127);
  EXPECT_EQ(ReadFile(runner.StderrPath(spec)), fmt::format("weftd node: cannot exec /bin/sh: errno {}\n", E2BIG));
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, RunningTaskIsRecordedUntilReaped) {
  const fs::path dir = FreshDir("record");
  TaskRunner runner(dir);
  ASSERT_TRUE(runner.Start(Command(5, "sleep 30")).ok());
  const std::vector<GroupRecord> records = ReadGroupRecords(dir / "running");
  ASSERT_EQ(records.size(), 1u);
  const GroupRecord* record = &records[0];
  const std::optional<ProcStat> leader = ReadProcStat(record->pgid);
  ASSERT_TRUE(leader.has_value());
  EXPECT_EQ(leader->pgrp, record->pgid);  // the task leads a group of its own
  EXPECT_EQ(leader->start_ticks, record->start_ticks);
  EXPECT_NE(record->pgid, getpgrp());
  EXPECT_EQ(record->boot_id, BootId());
  // A second task gets a record of its own; the first one's goes when it is reaped.
  ASSERT_TRUE(runner.Start(Command(6, "sleep 30")).ok());
  EXPECT_EQ(ReadGroupRecords(dir / "running").size(), 2u);
  runner.Kill(5);
  WaitForExits(runner, 1);
  const std::vector<GroupRecord> left = ReadGroupRecords(dir / "running");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].pgid, record->pgid);
  runner.Kill(6);
  WaitForExits(runner, 1);
  EXPECT_TRUE(ReadGroupRecords(dir / "running").empty());
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, KillEndsTheTaskAndItsGrandchildren) {
  const fs::path dir = FreshDir("kill");
  TaskRunner runner(dir);
  const fs::path pids = dir / "pids";
  ASSERT_TRUE(runner.Start(Command(1, fmt::format("sleep 30 & echo $! > {}; echo $$ >> {}; sleep 30", pids.string(),
                                                  pids.string())))
                  .ok());
  const std::vector<pid_t> started = ReadPids(pids, 2);
  ASSERT_EQ(started.size(), 2u);
  for (pid_t pid : started) ASSERT_FALSE(Gone(pid));
  runner.Kill(1);
  const std::vector<TaskExit> exits = WaitForExits(runner, 1);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(exits[0].killed);
  EXPECT_EQ(exits[0].exit_code, 128 + SIGKILL);
  for (pid_t pid : started) EXPECT_TRUE(WaitGone(pid)) << pid;
  runner.Kill(1);  // already reaped: ignored
  runner.Kill(99);  // never started: ignored
  EXPECT_TRUE(runner.Reap().empty());
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, TaskEndingOnItsOwnTakesItsGroupAlong) {
  const fs::path dir = FreshDir("stragglers");
  TaskRunner runner(dir);
  const fs::path pids = dir / "pids";
  const TaskExit exit = RunToEnd(runner, Command(1, fmt::format("sleep 30 & echo $! > {}", pids.string())));
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_FALSE(exit.killed);
  const std::vector<pid_t> straggler = ReadPids(pids, 1);
  ASSERT_EQ(straggler.size(), 1u);
  EXPECT_TRUE(WaitGone(straggler[0]));
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, KillAllReapsEveryTask) {
  const fs::path dir = FreshDir("killall");
  TaskRunner runner(dir);
  for (uint64_t id = 1; id <= 3; ++id) ASSERT_TRUE(runner.Start(Command(id, "sleep 30 & sleep 30")).ok());
  ASSERT_TRUE(runner.Start(TaskSpec{.id = 4, .builtin_duration_us = 30 * kUsPerSecond}).ok());
  EXPECT_EQ(runner.running(), 4u);
  runner.KillAll();
  EXPECT_EQ(runner.running(), 0u);
  EXPECT_TRUE(ReadGroupRecords(dir / "running").empty());
  std::vector<TaskExit> exits = runner.Reap();
  ASSERT_EQ(exits.size(), 4u);
  for (const TaskExit& e : exits) {
    EXPECT_TRUE(e.killed) << e.id;
    EXPECT_EQ(e.exit_code, 128 + SIGKILL) << e.id;
  }
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, DestructorKillsWhatIsRunning) {
  const fs::path dir = FreshDir("dtor");
  const fs::path pids = dir / "pids";
  std::vector<pid_t> started;
  {
    TaskRunner runner(dir);
    ASSERT_TRUE(runner.Start(Command(1, fmt::format("sleep 30 & echo $! > {}; wait", pids.string()))).ok());
    started = ReadPids(pids, 1);
  }
  ASSERT_EQ(started.size(), 1u);
  EXPECT_TRUE(WaitGone(started[0]));
  EXPECT_TRUE(fs::is_empty(dir / "running"));  // a runner gone cleanly leaves no records file
  fs::remove_all(dir);
}

// The task gets no ignored signal and an empty mask whatever the daemon's
// thread has (here: SIGPIPE ignored, SIGUSR1 handled, SIGUSR2 blocked), and
// the runner's own dispositions and mask are left as they were.
TEST(TaskRunnerTest, TaskStartsWithDefaultSignals) {
  const fs::path dir = FreshDir("signals");
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction handle {};
  handle.sa_handler = [](int) {};
  struct sigaction old_pipe {};
  struct sigaction old_usr1 {};
  ASSERT_EQ(sigaction(SIGPIPE, &ignore, &old_pipe), 0);
  ASSERT_EQ(sigaction(SIGUSR1, &handle, &old_usr1), 0);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigset_t old_mask;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr2, &old_mask), 0);
  TaskRunner runner(dir);
  const TaskSpec spec = Command(1, "cat /proc/self/status");
  const TaskExit exit = RunToEnd(runner, spec);
  struct sigaction pipe_now {};
  struct sigaction usr1_now {};
  sigaction(SIGPIPE, &old_pipe, &pipe_now);
  sigaction(SIGUSR1, &old_usr1, &usr1_now);
  sigset_t mask_now;
  pthread_sigmask(SIG_SETMASK, &old_mask, &mask_now);
  EXPECT_EQ(exit.exit_code, 0);
  const std::string status = ReadFile(runner.StdoutPath(spec));
  EXPECT_NE(status.find("\nSigBlk:\t0000000000000000\n"), std::string::npos) << status;
  EXPECT_NE(status.find("\nSigIgn:\t0000000000000000\n"), std::string::npos) << status;
  EXPECT_EQ(pipe_now.sa_handler, SIG_IGN);
  EXPECT_EQ(usr1_now.sa_handler, handle.sa_handler);
  EXPECT_EQ(sigismember(&mask_now, SIGUSR2), 1);
  fs::remove_all(dir);
}

// dup2 of a descriptor onto itself keeps close-on-exec: a daemon started
// with stdout closed, whose task output file then gets descriptor 1, must
// still hand it to the task.
TEST(TaskRunnerTest, OutputReachesTheTaskWhenItsFileGetsDescriptorOne) {
  const fs::path dir = FreshDir("fd1");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    TaskRunner runner(dir);
    // A first task makes the runner open its records file; then the lowest
    // free descriptor, 1, goes to the second task's stdout file.
    bool ok = runner.Start(Command(1, "true")).ok();
    std::vector<TaskExit> exits;
    auto wait_exit = [&] {
      exits.clear();
      for (int i = 0; ok && exits.empty() && i < 2000; ++i) {
        pollfd p{.fd = runner.wake_fd(), .events = POLLIN, .revents = 0};
        poll(&p, 1, 10);
        exits = runner.Reap();
      }
    };
    wait_exit();
    close(STDOUT_FILENO);
    const TaskSpec spec = Command(2, "echo out");
    ok = ok && runner.Start(spec).ok();
    wait_exit();
    ok = ok && exits.size() == 1 && exits[0].exit_code == 0 && ReadFile(runner.StdoutPath(spec)) == "out\n";
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fs::remove_all(dir);
}

// A runner whose process dies without cleaning up (as under kill -9): a
// forked copy of this test starts a task whose shell leaves two sleeps in
// its group, then _exits. PR_SET_PDEATHSIG kills the shell; the sleeps live
// on until KillLeftovers.
TEST(TaskRunnerTest, KillLeftoversKillsTheGroupsOfALostRunner) {
  const fs::path dir = FreshDir("leftovers");
  const fs::path pids = dir / "pids";
  const pid_t lost = fork();
  ASSERT_GE(lost, 0);
  if (lost == 0) {
    auto* runner = new TaskRunner(dir);  // never destroyed, on purpose
    const std::string p = pids.string();
    const bool ok =
        runner->Start(Command(1, fmt::format("sleep 30 & echo $! > {}; sleep 30 & echo $! >> {}; wait", p, p))).ok();
    const bool written = ok && ReadPids(pids, 2).size() == 2;
    _exit(written ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(lost, &status, 0), lost);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::vector<pid_t> sleeps = ReadPids(pids, 2);
  ASSERT_EQ(sleeps.size(), 2u);
  const std::vector<GroupRecord> records = ReadGroupRecords(dir / "running");
  ASSERT_EQ(records.size(), 1u);
  // PR_SET_PDEATHSIG: the shell died with the runner's thread (or it would wait 30 s for the sleeps).
  EXPECT_TRUE(WaitGone(records[0].pgid));
  // Given time to die if they were going to on their own: they are not.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (pid_t pid : sleeps) ASSERT_FALSE(Gone(pid)) << pid;

  TaskRunner::KillLeftovers(dir);
  for (pid_t pid : sleeps) EXPECT_TRUE(WaitGone(pid)) << pid;
  EXPECT_TRUE(fs::is_empty(dir / "running"));
  fs::remove_all(dir);
}

// A process group of our own making, outside any runner, for hand-written records.
pid_t StartSleepGroup() {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

bool Exited(pid_t pid) {
  const std::optional<ProcStat> st = ReadProcStat(pid);
  return !st || st->state == 'Z';
}

TEST(TaskRunnerTest, KillLeftoversChecksTheRecordedGroupIsStillOurs) {
  const fs::path dir = FreshDir("reuse");
  fs::create_directories(dir / "running");
  const pid_t pid = StartSleepGroup();
  ASSERT_GT(pid, 0);
  const auto wait_stat = [&] {
    const auto deadline = steady_clock::now() + kPatience;
    std::optional<ProcStat> st;
    while ((!(st = ReadProcStat(pid)) || st->pgrp != pid) && steady_clock::now() < deadline) {
    }
    return st;
  };
  const std::optional<ProcStat> st = wait_stat();
  ASSERT_TRUE(st.has_value());

  // Another start time: the pid was reused by someone else. Another boot: the pid means nothing now.
  ASSERT_TRUE(WriteGroupRecord(dir / "running" / "1", {.pgid = pid, .start_ticks = st->start_ticks + 1, .boot_id = BootId()}).ok());
  ASSERT_TRUE(WriteGroupRecord(dir / "running" / "2", {.pgid = pid, .start_ticks = st->start_ticks, .boot_id = "another-boot"}).ok());
  std::ofstream(dir / "running" / "3") << "half-wri";
  TaskRunner::KillLeftovers(dir);
  EXPECT_TRUE(fs::is_empty(dir / "running"));
  EXPECT_FALSE(Exited(pid));

  // The same group, recorded by hand: killed.
  ASSERT_TRUE(WriteGroupRecord(dir / "running" / "4", {.pgid = pid, .start_ticks = st->start_ticks, .boot_id = BootId()}).ok());
  TaskRunner::KillLeftovers(dir);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, KillLeftoversOfAMissingDirIsNothing) {
  TaskRunner::KillLeftovers("/nonexistent/weft/work");
  SUCCEED();
}

TEST(TaskRunnerTest, BuiltinZeroDurationTasksCompleteAtOnce) {
  const fs::path dir = FreshDir("builtin0");
  TaskRunner runner(dir);
  pollfd p{.fd = runner.wake_fd(), .events = POLLIN, .revents = 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  for (uint64_t id = 0; id < 1000; ++id) ASSERT_TRUE(runner.Start(TaskSpec{.id = id}).ok());
  EXPECT_EQ(runner.running(), 0u);
  EXPECT_EQ(poll(&p, 1, 0), 1);  // readable without waiting: the tasks are done
  const std::vector<TaskExit> exits = runner.Reap();
  ASSERT_EQ(exits.size(), 1000u);
  for (uint64_t id = 0; id < 1000; ++id) {
    EXPECT_EQ(exits[id].id, id);
    EXPECT_EQ(exits[id].exit_code, 0);
  }
  EXPECT_EQ(poll(&p, 1, 0), 0);  // drained
  EXPECT_TRUE(runner.Reap().empty());
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, BuiltinTaskUsesCpu) {
  const fs::path dir = FreshDir("builtin");
  TaskRunner runner(dir);
  const TaskExit exit = RunToEnd(runner, TaskSpec{.id = 1, .builtin_duration_us = 200'000});
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_GT(exit.cpu_seconds, 0.05);
  EXPECT_LT(exit.cpu_seconds, 5.0);
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, SampleUsageMeasuresTheWholeGroup) {
  const fs::path dir = FreshDir("usage");
  TaskRunner runner(dir);
  // Two spinning children under a sleeping shell: cpu comes from the group, not the leader.
  ASSERT_TRUE(runner.Start(Command(1, "spin() { while :; do :; done; }; spin & spin & wait")).ok());
  ASSERT_TRUE(runner.Start(Command(2, "sleep 30")).ok());
  std::vector<TaskUsage> usage;
  const auto deadline = steady_clock::now() + kPatience;
  double cpu_of_spinners = 0;
  while (cpu_of_spinners <= 0 && steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    usage = runner.SampleUsage();
    ASSERT_EQ(usage.size(), 2u);
    cpu_of_spinners = usage[0].cpu_cores;
  }
  ASSERT_EQ(usage[0].id, 1u);
  EXPECT_GT(usage[0].cpu_cores, 0);
  EXPECT_GT(usage[0].rss_bytes, 0);
  EXPECT_EQ(usage[1].id, 2u);
  EXPECT_GT(usage[1].rss_bytes, 0);
  runner.KillAll();
  for (const TaskExit& e : runner.Reap()) {
    if (e.id == 1) {
      EXPECT_GT(e.cpu_seconds, 0);
    }
    EXPECT_GT(e.peak_rss_bytes, 0);
  }
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, MissingWorkDirIsAnError) {
  TaskRunner runner("/nonexistent/weft/work");
  const absl::Status status = runner.Start(Command(1, "true"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(StatusMessage(status).find("/nonexistent/weft/work"), std::string_view::npos);
  EXPECT_EQ(runner.running(), 0u);
  EXPECT_TRUE(runner.Reap().empty());
}

TEST(TaskRunnerTest, DuplicateRunningIdIsRefused) {
  const fs::path dir = FreshDir("dup");
  TaskRunner runner(dir);
  ASSERT_TRUE(runner.Start(Command(1, "sleep 30")).ok());
  EXPECT_EQ(runner.Start(Command(1, "true")).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(runner.running(), 1u);
  runner.KillAll();
  EXPECT_EQ(runner.Reap().size(), 1u);
  fs::remove_all(dir);
}

TEST(TaskRunnerTest, SafeFileNameKeepsNamesInTheirDirectory) {
  EXPECT_EQ(TaskRunner::SafeFileName("job-1-2-3-0", 9), "job-1-2-3-0");
  EXPECT_EQ(TaskRunner::SafeFileName("../etc/passwd", 9), "_._etc_passwd");
  EXPECT_EQ(TaskRunner::SafeFileName("a b*c", 9), "a_b_c");
  EXPECT_EQ(TaskRunner::SafeFileName("", 9), "task-9");
  EXPECT_EQ(TaskRunner::SafeFileName(std::string(300, 'x'), 9).size(), 128u);
}

// Issue 34, finding 6: a long stage name must not cut the -TASK-ATTEMPT
// suffix off and make a stage's tasks share one output file.
TEST(TaskRunnerTest, SafeFileNameKeepsLongLabelsApart) {
  const std::string stage(200, 's');
  const std::string a = TaskRunner::SafeFileName("0-" + stage + "-1-0", 9);
  const std::string b = TaskRunner::SafeFileName("0-" + stage + "-2-0", 9);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 128u);
  EXPECT_EQ(b.size(), 128u);
  EXPECT_EQ(a.substr(0, 100), b.substr(0, 100));  // still readable: the label's start
  EXPECT_EQ(a, TaskRunner::SafeFileName("0-" + stage + "-1-0", 9));  // the same label, the same file
  const std::string fits(128, 'y');
  EXPECT_EQ(TaskRunner::SafeFileName(fits, 9), fits);  // up to the limit, unchanged
}

}  // namespace
}  // namespace weft::runtime

namespace weft::runtime {
namespace {

// The built-in phases' I/O work (issue 12 §4): a disk phase writes and reads
// back its scratch file and removes it, a net phase moves its bytes over
// loopback; the exit carries the measured storage and network bytes.
TEST(TaskRunnerTest, BuiltinDiskAndNetPhasesDoTheirIoAndAreMeasured) {
  const fs::path dir = FreshDir("io");
  TaskRunner runner(dir);
  const TaskExit disk = RunToEnd(runner, TaskSpec{.id = 1, .label = "disk", .builtin_work = BuiltinWork::kDisk,
                                                  .builtin_mb = 4});
  EXPECT_EQ(disk.exit_code, 0) << disk.error;
  EXPECT_GE(disk.storage_bytes, 4'000'000u);  // written (and read back: up to twice that)
  EXPECT_GT(disk.run_us, 0);
  EXPECT_TRUE(fs::is_empty(dir / "scratch"));
  const TaskExit net = RunToEnd(runner, TaskSpec{.id = 2, .label = "net", .builtin_work = BuiltinWork::kNet,
                                                 .builtin_mb = 8});
  EXPECT_EQ(net.exit_code, 0) << net.error;
  EXPECT_GE(net.net_bytes, 8'000'000u);
  EXPECT_LT(net.storage_bytes, 1'000'000u);
  // 0 MB ends at once, without a process.
  const TaskExit none = RunToEnd(runner, TaskSpec{.id = 3, .builtin_work = BuiltinWork::kNet});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.run_us, 0);
  fs::remove_all(dir);
}

// A profiled phase (BuiltinProfile) runs for its duration doing all its
// parts at once at their rates: half a core of cpu, 20 MB held, 10 MB/s
// written to disk, 10 MB/s over loopback; its workers are in its group, so
// the exit's figures are the phase's, and its scratch file is gone.
TEST(TaskRunnerTest, AProfiledPhaseRunsItsDurationAtItsRates) {
  const fs::path dir = FreshDir("profile");
  TaskRunner runner(dir);
  const TaskExit e = RunToEnd(runner, TaskSpec{.id = 1, .label = "profile", .builtin_duration_us = 500'000,
                                               .builtin_work = BuiltinWork::kProfile,
                                               .builtin_profile = {.cores = 0.5, .mem_gb = 0.02, .disk_mbps = 10,
                                                                   .net_mbps = 10}});
  EXPECT_EQ(e.exit_code, 0) << e.error;
  EXPECT_GE(e.run_us, 500'000);  // its duration at least, wall clock
  EXPECT_LT(e.run_us, 20'000'000);
  EXPECT_GT(e.cpu_seconds, 0.2);   // 0.5 core x 0.5 s, paced...
  EXPECT_LT(e.cpu_seconds, 0.45);  // ...not a whole core
  EXPECT_GE(e.peak_rss_bytes, 20'000'000);
  EXPECT_GE(e.storage_bytes, 5'000'000u);
  EXPECT_GE(e.net_bytes, 5'000'000u);
  EXPECT_TRUE(fs::is_empty(dir / "scratch"));
  fs::remove_all(dir);
}

// Killed mid-phase, a profiled phase takes its workers along.
TEST(TaskRunnerTest, KillingAProfiledPhaseEndsItsWorkers) {
  const fs::path dir = FreshDir("profile_kill");
  TaskRunner runner(dir);
  ASSERT_TRUE(runner
                  .Start(TaskSpec{.id = 1, .label = "p", .builtin_duration_us = 30'000'000,
                                  .builtin_work = BuiltinWork::kProfile, .builtin_profile = {.cores = 1.5}})
                  .ok());
  usleep(100'000);
  const auto start = std::chrono::steady_clock::now();
  runner.KillAll();
  const std::vector<TaskExit> exits = runner.Reap();
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_TRUE(exits[0].killed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  fs::remove_all(dir);
}

TEST(ProcUsageTest, ParsesProcIo) {
  const ProcIo io = ParseProcIo("rchar: 900\nwchar: 50\nsyscr: 3\nread_bytes: 100\nwrite_bytes: 40\n");
  EXPECT_EQ(io.storage(), 140u);
  EXPECT_EQ(io.other(), 800u);  // the larger direction: 900-100 read vs 50-40 written
}

// A command task runs in the work dir.
TEST(TaskRunnerTest, CommandsRunInTheWorkDir) {
  const fs::path dir = FreshDir("cwd");
  TaskRunner runner(dir);
  EXPECT_EQ(RunToEnd(runner, Command(1, "pwd > here")).exit_code, 0);
  EXPECT_EQ(ReadFile(dir / "here"), fs::canonical(dir).string() + "\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace weft::runtime
