// Crash tests for runtime/journal.h: a child process writes batches and
// reports each one through a pipe once Commit() returned (its
// acknowledgement); the parent kills it with SIGKILL right after an ack, or
// lets it _exit without closing the journal, then reopens the journal and
// requires every acknowledged batch, whole, and no partial batch.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

#include "gtest/gtest.h"
#include "journal_test_util.h"
#include "runtime/journal.h"

namespace weft::runtime::journal_test {
namespace {

// One batch = one job, three attempt ends and the job's end, in one
// Begin()/Commit(): what a driver does for one burst of events.
std::vector<AttemptRecord> BatchAttempts(uint32_t job) {
  return {MakeAttempt(job, 0, 0, Outcome::kFailed), MakeAttempt(job, 0, 0, Outcome::kOk),
          MakeAttempt(job, 1, 0, Outcome::kOk)};
}

int WriteBatch(Journal& journal, uint32_t job) {
  if (!journal.Begin().ok()) return 11;
  const JournalJob jobs[] = {MakeJob(job)};
  if (!journal.AddJobs(jobs).ok()) return 12;
  if (!journal.RecordAttempts(BatchAttempts(job)).ok()) return 13;
  if (!journal.EndJob(JobId(job), JournalJob::State::kSucceeded, 1000 + job).ok()) return 14;
  if (!journal.Commit().ok()) return 15;
  return 0;
}

// ChildWrites runs in the forked child: batches first_job, first_job + 1, ...
// and one ack (the job id) per committed batch. It never closes the journal
// and never returns into the test framework.
[[noreturn]] void ChildWrites(const std::filesystem::path& dir, JournalOptions options, int ack_fd,
                              uint32_t first_job, uint32_t batches) {
  auto journal = Journal::Open(dir, options);
  if (!journal.ok()) _exit(10);
  for (uint32_t job = first_job; job < first_job + batches; ++job) {
    if (const int rc = WriteBatch(**journal, job); rc != 0) _exit(rc);
    if (write(ack_fd, &job, sizeof job) != sizeof job) _exit(16);
  }
  _exit(0);  // no destructor: the journal is left open, as by a crash
}

// Child is a forked writer and the read end of its ack pipe.
struct Child {
  pid_t pid = -1;
  int ack_fd = -1;

  static Child Start(const std::filesystem::path& dir, JournalOptions options, uint32_t first_job,
                     uint32_t batches) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(fds[0]);
      ChildWrites(dir, options, fds[1], first_job, batches);
    }
    close(fds[1]);
    return {.pid = pid, .ack_fd = fds[0]};
  }

  // NextAck returns the job id of the next acknowledged batch, or -1 at EOF.
  int64_t NextAck() const {
    uint32_t job = 0;
    size_t got = 0;
    while (got < sizeof job) {
      const ssize_t n = read(ack_fd, reinterpret_cast<char*>(&job) + got, sizeof job - got);
      if (n <= 0) return -1;
      got += static_cast<size_t>(n);
    }
    return job;
  }

  // Wait reaps the child and returns its wait status.
  int Wait() const {
    int status = 0;
    waitpid(pid, &status, 0);
    close(ack_fd);
    return status;
  }
};

// CompleteBatches checks that the journal holds exactly batches 0..n-1, each
// whole, and returns n.
uint32_t CompleteBatches(const Recovered& r) {
  const auto n = static_cast<uint32_t>(r.jobs.size());
  std::vector<AttemptRecord> expected;
  for (uint32_t job = 0; job < n; ++job) {
    EXPECT_EQ(r.jobs[job].id, JobId(job)) << "a batch is missing";
    EXPECT_EQ(r.jobs[job].state, JournalJob::State::kSucceeded) << "job " << job << " half-written";
    EXPECT_EQ(r.jobs[job].end_us, 1000 + job);
    for (const AttemptRecord& a : BatchAttempts(job)) expected.push_back(a);
  }
  EXPECT_EQ(Rows(r.attempts), Rows(expected)) << "attempts of a batch are missing or extra";
  return n;
}

TEST_F(JournalTest, ExitWithoutCloseKeepsEveryBatch) {
  const Child child = Child::Start(dir(), {}, 0, 40);
  int64_t last = -1;
  for (int64_t ack; (ack = child.NextAck()) >= 0;) last = ack;
  const int status = child.Wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(last, 39);

  auto journal = OpenOrDie();
  EXPECT_EQ(CompleteBatches(LoadOrDie(*journal)), 40u);
}

// Several rounds on one journal, each killing the writer at a different
// point, alternating FULL and NORMAL (both must survive a process kill).
TEST_F(JournalTest, KillNineRightAfterAnAckLosesNoAcknowledgedBatch) {
  uint32_t next_job = 0;
  for (int round = 0; round < 6; ++round) {
    const JournalOptions options{.sync =
                                     round % 2 == 0 ? JournalSync::kFull : JournalSync::kNormal};
    const Child child = Child::Start(dir(), options, next_job, 1'000'000);
    const int acks_before_kill = 5 + 7 * round;
    int64_t last_ack = -1;
    for (int i = 0; i < acks_before_kill; ++i) {
      last_ack = child.NextAck();
      ASSERT_GE(last_ack, 0) << "the writer died on its own (round " << round << ")";
    }
    kill(child.pid, SIGKILL);  // most likely in the middle of the next batch
    for (int64_t ack; (ack = child.NextAck()) >= 0;) last_ack = ack;  // acks already in the pipe
    const int status = child.Wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;

    auto journal = OpenOrDie();
    const uint32_t complete = CompleteBatches(LoadOrDie(*journal));
    // Every acknowledged batch is there; at most one more (committed, killed
    // before its ack was written).
    EXPECT_GE(complete, last_ack + 1) << "round " << round;
    EXPECT_LE(complete, last_ack + 2) << "round " << round;
    next_job = complete;
  }
}

}  // namespace
}  // namespace weft::runtime::journal_test
