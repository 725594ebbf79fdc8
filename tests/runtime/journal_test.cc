// Tests for runtime/journal.h: round trips, atomicity, the no-ok-twice rule,
// batches, refusal of foreign and corrupt files. Crash tests are in
// journal_crash_test.cc.
#include "runtime/journal.h"

#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <tuple>

#include "gtest/gtest.h"
#include "journal_test_util.h"

namespace weft::runtime::journal_test {
namespace {

Resources Res(int64_t cpu, int64_t mem, int64_t disk, int64_t net) {
  Resources r;
  r.set_micro(kCpu, cpu);
  r.set_micro(kMem, mem);
  r.set_micro(kDisk, disk);
  r.set_micro(kNet, net);
  return r;
}

TEST_F(JournalTest, RoundTripsEveryField) {
  std::vector<JournalJob> jobs;
  std::vector<AttemptRecord> attempts;
  {
    auto journal = OpenOrDie();
    ASSERT_TRUE(journal->SetMeta("policy", "fifo").ok());
    ASSERT_TRUE(journal->SetMeta("params", "{\"a\": 1}").ok());
    ASSERT_TRUE(journal->SetMeta("policy", "fair").ok());  // replaces
    ASSERT_TRUE(
        journal->PutNode({.slot = 7, .name = "n7", .capacity = Res(16'000'000, 1, 0, 3)}).ok());
    ASSERT_TRUE(journal->PutNode({.slot = 2, .name = "old", .capacity = Res(1, 1, 1, 1)}).ok());
    ASSERT_TRUE(
        journal
            ->PutNode(
                {.slot = 2, .name = "n2", .capacity = Res(1'000'000'000'000'000'000, 2, 3, 4)})
            .ok());  // replaces slot 2

    jobs = {MakeJob(5), MakeJob(3)};
    jobs[0].name = "with 'quotes' and \"json\" and ünïcode";
    jobs[0].spec_json = R"({"name": "x", "stages": [{"tasks": 3}], "nul": "a\u0000b"})";
    jobs[0].submitted_us = -17;  // before the epoch is still a time
    jobs[1].state = JournalJob::State::kCancelled;
    jobs[1].end_us = std::numeric_limits<TimeUs>::max();
    ASSERT_TRUE(journal->AddJobs(jobs).ok());

    const Outcome outcomes[] = {Outcome::kFailed, Outcome::kKilled, Outcome::kOk};
    const Locality localities[] = {Locality::kNone, Locality::kNode, Locality::kRack,
                                   Locality::kRemote};
    for (uint32_t i = 0; i < 12; ++i) {
      AttemptRecord a = MakeAttempt(5, i % 3, i, outcomes[i % 3]);
      a.attempt = i * 1000;
      a.machine = i == 11 ? MachineId() : MachineId(i + 40);  // invalid machine round-trips too
      a.ready_us = i;
      a.start_us = 1'000'000'007LL * i;
      a.end_us = std::numeric_limits<TimeUs>::max() - i;
      a.demand = Res(i, 2 * i, 3 * i, 123'456'789'012LL);
      a.usage = Res(7, 0, i, 5);
      a.locality = localities[i % 4];
      a.in_container = i % 2 == 1;
      attempts.push_back(a);
    }
    ASSERT_TRUE(journal->RecordAttempts(attempts).ok());
    ASSERT_TRUE(journal->EndJob(JobId(5), JournalJob::State::kFailed, 99).ok());
  }
  jobs[0].state = JournalJob::State::kFailed;
  jobs[0].end_us = 99;

  auto journal = OpenOrDie();
  const Recovered r = LoadOrDie(*journal);
  EXPECT_EQ(r.meta,
            (std::map<std::string, std::string>{{"params", "{\"a\": 1}"}, {"policy", "fair"}}));
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(
      r.nodes[0],
      (JournalNode{.slot = 2, .name = "n2", .capacity = Res(1'000'000'000'000'000'000, 2, 3, 4)}));
  EXPECT_EQ(r.nodes[1],
            (JournalNode{.slot = 7, .name = "n7", .capacity = Res(16'000'000, 1, 0, 3)}));
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0], jobs[1]);  // ordered by id
  EXPECT_EQ(r.jobs[1], jobs[0]);
  EXPECT_EQ(r.jobs[1].spec_json.size(), jobs[0].spec_json.size());
  EXPECT_EQ(Rows(r.attempts), Rows(attempts));  // every field, in journal order
}

TEST_F(JournalTest, ReopenAppendsToWhatWasThere) {
  {
    auto journal = OpenOrDie();
    const JournalJob jobs[] = {MakeJob(1)};
    ASSERT_TRUE(journal->AddJobs(jobs).ok());
    const AttemptRecord a[] = {MakeAttempt(1, 0, 0, Outcome::kFailed)};
    ASSERT_TRUE(journal->RecordAttempts(a).ok());
  }
  {
    auto journal = OpenOrDie();
    EXPECT_EQ(LoadOrDie(*journal).attempts.size(), 1u);
    const AttemptRecord a[] = {MakeAttempt(1, 0, 0, Outcome::kOk)};
    ASSERT_TRUE(journal->RecordAttempts(a).ok());
  }
  auto journal = OpenOrDie();
  const Recovered r = LoadOrDie(*journal);
  ASSERT_EQ(r.attempts.size(), 2u);
  EXPECT_EQ(r.attempts[0].outcome, Outcome::kFailed);
  EXPECT_EQ(r.attempts[1].outcome, Outcome::kOk);
  EXPECT_EQ(r.jobs.size(), 1u);
}

TEST_F(JournalTest, SecondOkOfATaskIsRefusedAndChangesNothing) {
  auto journal = OpenOrDie();
  const AttemptRecord first[] = {MakeAttempt(1, 0, 0, Outcome::kOk),
                                 MakeAttempt(1, 0, 1, Outcome::kFailed)};
  ASSERT_TRUE(journal->RecordAttempts(first).ok());
  const Recovered before = LoadOrDie(*journal);

  // The refused ok comes after a valid record in the same call: neither is kept.
  const AttemptRecord again[] = {MakeAttempt(1, 0, 1, Outcome::kOk),
                                 MakeAttempt(1, 0, 0, Outcome::kOk)};
  const absl::Status s = journal->RecordAttempts(again);
  EXPECT_TRUE(absl::IsAlreadyExists(s)) << s;
  EXPECT_NE(StatusMessage(s).find("1/0/0"), std::string_view::npos) << s;
  EXPECT_EQ(Rows(LoadOrDie(*journal).attempts), Rows(before.attempts));

  // Two oks of one task in one call are refused too.
  const AttemptRecord twice[] = {MakeAttempt(2, 1, 1, Outcome::kOk),
                                 MakeAttempt(2, 1, 1, Outcome::kOk)};
  EXPECT_TRUE(absl::IsAlreadyExists(journal->RecordAttempts(twice)));
  EXPECT_EQ(Rows(LoadOrDie(*journal).attempts), Rows(before.attempts));

  // Failed and killed attempts of a task that succeeded are still recorded
  // (e.g. a speculative copy killed after the other finished).
  const AttemptRecord late[] = {MakeAttempt(1, 0, 0, Outcome::kKilled)};
  EXPECT_TRUE(journal->RecordAttempts(late).ok());
  EXPECT_EQ(LoadOrDie(*journal).attempts.size(), 3u);
}

// Retention (issue 20): DeleteJobs forgets the named jobs and their attempts,
// and only them; LoadAttempts reads one job's attempts back.
TEST_F(JournalTest, DeleteJobsForgetsOnlyTheNamedJobsAndTheirAttempts) {
  {
    auto journal = OpenOrDie();
    const JournalJob jobs[] = {MakeJob(0), MakeJob(1), MakeJob(2)};
    ASSERT_TRUE(journal->AddJobs(jobs).ok());
    const AttemptRecord a[] = {MakeAttempt(0, 0, 0, Outcome::kOk), MakeAttempt(1, 0, 0, Outcome::kFailed),
                               MakeAttempt(2, 0, 0, Outcome::kOk), MakeAttempt(1, 0, 0, Outcome::kOk)};
    ASSERT_TRUE(journal->RecordAttempts(a).ok());
    const JobId one[] = {JobId(1)};
    auto of_one = journal->LoadAttempts(one);
    ASSERT_TRUE(of_one.ok());
    ASSERT_EQ(of_one->size(), 2u);
    EXPECT_EQ((*of_one)[0].outcome, Outcome::kFailed);  // journal order
    const JobId doomed[] = {JobId(0), JobId(2), JobId(7)};  // 7: unknown, skipped
    ASSERT_TRUE(journal->DeleteJobs(doomed).ok());
  }
  auto journal = OpenOrDie();  // and it is durable
  const Recovered r = LoadOrDie(*journal);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, JobId(1));
  ASSERT_EQ(r.attempts.size(), 2u);
  for (const AttemptRecord& a : r.attempts) EXPECT_EQ(a.task.job, JobId(1));
}

// Retention (issue 20): the file gives back what DeleteJobs freed, rather
// than keeping its peak size; a journal made before incremental auto-vacuum
// is converted at its next Open.
TEST_F(JournalTest, DeleteJobsShrinksTheFile) {
  constexpr uint32_t kJobs = 3000;
  auto file_size = [&] { return std::filesystem::file_size(dir() / "journal.db"); };
  {
    auto journal = OpenOrDie();
    std::vector<JournalJob> jobs;
    for (uint32_t j = 0; j < kJobs; ++j) {
      jobs.push_back(MakeJob(j));
      jobs.back().spec_json = std::string(1000, 'x');
    }
    ASSERT_TRUE(journal->AddJobs(jobs).ok());
  }
  const uintmax_t full = file_size();  // closed: the WAL is checkpointed into the file
  ASSERT_GT(full, uintmax_t{kJobs} * 1000);
  {
    auto journal = OpenOrDie();
    std::vector<JobId> doomed;
    for (uint32_t j = 0; j + 10 < kJobs; ++j) doomed.push_back(JobId(j));
    ASSERT_TRUE(journal->Begin().ok());
    ASSERT_TRUE(journal->DeleteJobs(doomed).ok());
    ASSERT_TRUE(journal->Commit().ok());
  }
  const uintmax_t compacted = file_size();
  EXPECT_LT(compacted, full / 10) << "full " << full << " after DeleteJobs " << compacted;
  {
    auto journal = OpenOrDie();
    EXPECT_EQ(LoadOrDie(*journal).jobs.size(), 10u);
  }

  // An older journal (no auto-vacuum) with the same free space.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir() / "journal.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA auto_vacuum = NONE; VACUUM;", nullptr, nullptr, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE filler(x); INSERT INTO filler SELECT zeroblob(100000) FROM "
                           "json_each('[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]'); DROP TABLE filler;",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_GT(file_size(), uintmax_t{2'000'000});  // the dropped table's pages stay
  {
    auto journal = OpenOrDie();
    EXPECT_EQ(LoadOrDie(*journal).jobs.size(), 10u);
  }
  EXPECT_LT(file_size(), compacted * 2);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir() / "journal.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA auto_vacuum", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 2);  // INCREMENTAL
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(JournalTest, AddJobsIsAllOrNothing) {
  auto journal = OpenOrDie();
  const JournalJob first[] = {MakeJob(1)};
  ASSERT_TRUE(journal->AddJobs(first).ok());
  const JournalJob clash[] = {MakeJob(2), MakeJob(3), MakeJob(1)};
  const absl::Status s = journal->AddJobs(clash);
  EXPECT_TRUE(absl::IsAlreadyExists(s)) << s;
  const JournalJob twice[] = {MakeJob(4), MakeJob(4)};
  EXPECT_TRUE(absl::IsAlreadyExists(journal->AddJobs(twice)));
  const Recovered r = LoadOrDie(*journal);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, JobId(1));
}

TEST_F(JournalTest, EndJobChecksTheJob) {
  auto journal = OpenOrDie();
  const JournalJob jobs[] = {MakeJob(1)};
  ASSERT_TRUE(journal->AddJobs(jobs).ok());
  EXPECT_TRUE(absl::IsNotFound(journal->EndJob(JobId(2), JournalJob::State::kSucceeded, 5)));
  EXPECT_TRUE(absl::IsInvalidArgument(journal->EndJob(JobId(1), JournalJob::State::kActive, 5)));
  ASSERT_TRUE(journal->EndJob(JobId(1), JournalJob::State::kSucceeded, 5).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(journal->EndJob(JobId(1), JournalJob::State::kFailed, 6)));
  const Recovered r = LoadOrDie(*journal);
  EXPECT_EQ(r.jobs[0].state, JournalJob::State::kSucceeded);
  EXPECT_EQ(r.jobs[0].end_us, 5);
}

TEST_F(JournalTest, BatchCommitsTogetherAndAFailedCallUndoesOnlyItself) {
  auto journal = OpenOrDie();
  ASSERT_TRUE(journal->Begin().ok());
  const JournalJob jobs[] = {MakeJob(1)};
  ASSERT_TRUE(journal->AddJobs(jobs).ok());
  const AttemptRecord ok[] = {MakeAttempt(1, 0, 0, Outcome::kOk)};
  ASSERT_TRUE(journal->RecordAttempts(ok).ok());
  const AttemptRecord dup[] = {MakeAttempt(1, 0, 1, Outcome::kOk),
                               MakeAttempt(1, 0, 0, Outcome::kOk)};
  EXPECT_TRUE(absl::IsAlreadyExists(journal->RecordAttempts(dup)));
  EXPECT_EQ(journal->batch_depth(), 1);
  ASSERT_TRUE(journal->Commit().ok());
  EXPECT_EQ(journal->batch_depth(), 0);

  journal.reset();
  journal = OpenOrDie();
  const Recovered r = LoadOrDie(*journal);
  EXPECT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(Rows(r.attempts), Rows(ok));
}

TEST_F(JournalTest, RollbackDiscardsTheInnermostBatch) {
  auto journal = OpenOrDie();
  ASSERT_TRUE(journal->Begin().ok());
  ASSERT_TRUE(journal->SetMeta("outer", "1").ok());
  ASSERT_TRUE(journal->Begin().ok());
  ASSERT_TRUE(journal->SetMeta("inner", "1").ok());
  journal->Rollback();
  EXPECT_EQ(journal->batch_depth(), 1);
  ASSERT_TRUE(journal->Commit().ok());
  EXPECT_EQ(LoadOrDie(*journal).meta, (std::map<std::string, std::string>{{"outer", "1"}}));

  ASSERT_TRUE(journal->Begin().ok());
  ASSERT_TRUE(journal->SetMeta("gone", "1").ok());
  journal->Rollback();
  journal->Rollback();  // outside a batch: nothing to do
  EXPECT_TRUE(absl::IsFailedPrecondition(journal->Commit()));
  EXPECT_EQ(LoadOrDie(*journal).meta.count("gone"), 0u);
}

TEST_F(JournalTest, AnUncommittedBatchIsDiscardedAtClose) {
  {
    auto journal = OpenOrDie();
    ASSERT_TRUE(journal->Begin().ok());
    ASSERT_TRUE(journal->SetMeta("never", "committed").ok());
  }
  auto journal = OpenOrDie();
  EXPECT_TRUE(LoadOrDie(*journal).meta.empty());
}

TEST_F(JournalTest, SecondOpenOfTheSameDirectoryFails) {
  auto journal = OpenOrDie();
  auto second = Journal::Open(dir());
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  journal.reset();
  EXPECT_TRUE(Journal::Open(dir()).ok());  // released at close
}

TEST_F(JournalTest, GarbageFileIsAClearError) {
  std::filesystem::create_directories(dir());
  std::ofstream(dir() / "journal.db") << std::string(10000, 'x');
  auto journal = Journal::Open(dir());
  ASSERT_FALSE(journal.ok());
  EXPECT_TRUE(absl::IsDataLoss(journal.status())) << journal.status();
  EXPECT_NE(StatusMessage(journal.status()).find("journal.db"), std::string_view::npos);
}

TEST_F(JournalTest, CorruptPagesAreAnErrorNotACrash) {
  {
    auto journal = OpenOrDie();
    std::vector<JournalJob> jobs;
    for (uint32_t i = 0; i < 200; ++i) jobs.push_back(MakeJob(i));
    ASSERT_TRUE(journal->AddJobs(jobs).ok());
  }
  OverwriteFile(4096, std::string(3 * 4096, '\xa5'));  // pages 2-4, page 1 (the schema) intact
  auto journal = Journal::Open(dir());
  if (!journal.ok()) {
    EXPECT_TRUE(absl::IsDataLoss(journal.status())) << journal.status();
    return;
  }
  const auto r = (*journal)->Load();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status();
}

TEST_F(JournalTest, OutOfRangeValueIsDataLossNamingTheTable) {
  {
    auto journal = OpenOrDie();
    const AttemptRecord a[] = {MakeAttempt(1, 0, 0, Outcome::kOk)};
    ASSERT_TRUE(journal->RecordAttempts(a).ok());
  }
  // A value SQLite stores fine but no weft writes: outcome 7.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir() / "journal.db").c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "UPDATE attempts SET outcome = 7", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  auto journal = OpenOrDie();
  const auto r = journal->Load();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status();
  EXPECT_NE(StatusMessage(r.status()).find("attempts"), std::string_view::npos) << r.status();
}

TEST_F(JournalTest, ForeignSqliteDatabaseIsRefused) {
  { OpenOrDie(); }
  OverwriteFile(68, std::string(4, '\0'));  // application_id := 0: some other program's database
  auto journal = Journal::Open(dir());
  ASSERT_FALSE(journal.ok());
  EXPECT_TRUE(absl::IsDataLoss(journal.status())) << journal.status();
  EXPECT_NE(StatusMessage(journal.status()).find("not a weft journal"), std::string_view::npos);
}

TEST_F(JournalTest, FutureSchemaVersionIsRefusedAndLeftAlone) {
  { OpenOrDie(); }
  OverwriteFile(60, std::string("\0\0\0\x63", 4));  // user_version := 99 (big-endian)
  const auto size_before = std::filesystem::file_size(dir() / "journal.db");
  auto journal = Journal::Open(dir());
  ASSERT_FALSE(journal.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(journal.status())) << journal.status();
  EXPECT_NE(StatusMessage(journal.status()).find("version 99"), std::string_view::npos)
      << journal.status();
  EXPECT_EQ(std::filesystem::file_size(dir() / "journal.db"), size_before);
  EXPECT_FALSE(std::filesystem::exists(dir() / "journal.db-wal"));
}

TEST_F(JournalTest, UncreatableDirectoryIsAnError) {
  std::filesystem::create_directories(dir());
  std::ofstream(dir() / "file") << "x";
  auto journal = Journal::Open(dir() / "file" / "sub");
  ASSERT_FALSE(journal.ok());
  EXPECT_NE(StatusMessage(journal.status()).find("cannot create"), std::string_view::npos);
}

}  // namespace
}  // namespace weft::runtime::journal_test
