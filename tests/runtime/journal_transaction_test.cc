// File: tests/runtime/journal_transaction_test.cc
//
// JournalTransaction (runtime/journal_transaction.h): a batch commits whole
// when every step succeeds, and leaves nothing behind when a step fails, when
// it is abandoned uncommitted, or after a step's failure the later steps do
// not run.
#include "runtime/journal_transaction.h"

#include "journal_test_util.h"

namespace weft::runtime::journal_test {
namespace {

using JournalTransactionTest = JournalTest;

TEST_F(JournalTransactionTest, CommitsEveryStepTogether) {
  auto journal = OpenOrDie();
  JournalTransaction tx(*journal);
  tx.Then([&] { return journal->AddJobs(std::vector<JournalJob>{MakeJob(0)}); });
  tx.Then([&] { return journal->SetMeta("done:0", "[[0,1]]"); });
  ASSERT_TRUE(tx.Commit().ok());
  const Recovered r = LoadOrDie(*journal);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.meta.at("done:0"), "[[0,1]]");
}

TEST_F(JournalTransactionTest, AFailedStepRollsBackTheEarlierOnesAndSkipsTheLaterOnes) {
  auto journal = OpenOrDie();
  ASSERT_TRUE(journal->AddJobs(std::vector<JournalJob>{MakeJob(0)}).ok());
  JournalTransaction tx(*journal);
  bool later_ran = false;
  tx.Then([&] { return journal->SetMeta("before", "x"); });
  tx.Then([&] { return journal->AddJobs(std::vector<JournalJob>{MakeJob(0)}); });  // already there: AlreadyExists
  tx.Then([&] {
    later_ran = true;
    return journal->SetMeta("after", "y");
  });
  const absl::Status s = tx.Commit();
  EXPECT_TRUE(absl::IsAlreadyExists(s)) << s;
  EXPECT_FALSE(later_ran);
  const Recovered r = LoadOrDie(*journal);
  EXPECT_EQ(r.jobs.size(), 1u);
  EXPECT_FALSE(r.meta.contains("before"));
  EXPECT_FALSE(r.meta.contains("after"));
  // The journal is usable afterwards: no batch was left open.
  ASSERT_TRUE(JournalTransaction(*journal).Then([&] { return journal->SetMeta("next", "z"); }).Commit().ok());
  EXPECT_EQ(LoadOrDie(*journal).meta.at("next"), "z");
}

TEST_F(JournalTransactionTest, AnUncommittedTransactionIsRolledBackWhenItGoes) {
  auto journal = OpenOrDie();
  {
    JournalTransaction tx(*journal);
    tx.Then([&] { return journal->AddJobs(std::vector<JournalJob>{MakeJob(0)}); });
    // An early return: no Commit.
  }
  EXPECT_TRUE(LoadOrDie(*journal).jobs.empty());
  ASSERT_TRUE(JournalTransaction(*journal).Then([&] { return journal->AddJobs(std::vector<JournalJob>{MakeJob(1)}); })
                  .Commit()
                  .ok());
  const Recovered r = LoadOrDie(*journal);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, JobId(1));
}

}  // namespace
}  // namespace weft::runtime::journal_test
