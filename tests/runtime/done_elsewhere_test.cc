// File: tests/runtime/done_elsewhere_test.cc
//
// runtime/scheduler/done_elsewhere.h: the tasks a failed-over submission
// brings as done are sorted by job, checked against the jobs they name, and
// kept in the form the journal's recovery reads back.
#include "runtime/scheduler/done_elsewhere.h"

#include <vector>

#include "gtest/gtest.h"
#include "runtime/scheduler/journal_recovery.h"

namespace weft::runtime {
namespace {

std::vector<SubmittedJob> TwoJobs() {
  std::vector<SubmittedJob> specs(2);
  for (SubmittedJob& s : specs) {
    s.live.job.stages.resize(2);
    s.live.job.stages[0].num_tasks = 3;
    s.live.job.stages[1].num_tasks = 1;
  }
  return specs;
}

v1::DoneTask Done(uint32_t job, uint32_t stage, uint32_t task) {
  v1::DoneTask d;
  d.set_job(job);
  d.set_stage(stage);
  d.set_task(task);
  return d;
}

TEST(DoneElsewhereTest, SortsTheTasksByJobAndRoundTripsThroughTheJournalsForm) {
  const std::vector<v1::DoneTask> done = {Done(1, 0, 2), Done(0, 1, 0), Done(1, 0, 0)};
  const auto sorted = SortDoneTasks(done, TwoJobs());
  ASSERT_TRUE(sorted.ok()) << sorted.status();
  ASSERT_EQ(sorted->size(), 2u);
  EXPECT_EQ((*sorted)[0].size(), 1u);
  EXPECT_EQ((*sorted)[1].JournalText(), "[[0,2],[0,0]]");
  // What recovery reads back is what the engine got at submission.
  const std::map<std::string, std::string> meta = {{DoneMetaKey(JobId(7)), (*sorted)[1].JournalText()}};
  const std::vector<AttemptRecord> history = (*sorted)[1].History(JobId(7));
  const std::vector<AttemptRecord> recovered = DoneElsewhere(meta, JobId(7));
  ASSERT_EQ(history.size(), 2u);
  ASSERT_EQ(recovered.size(), 2u);
  for (size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i].task, recovered[i].task);
    EXPECT_EQ(history[i].outcome, Outcome::kOk);
  }
  EXPECT_EQ(history[0].task, (TaskRef{JobId(7), 0, 2}));
}

TEST(DoneElsewhereTest, ATaskThatIsNotInTheSubmissionIsRefused) {
  for (const v1::DoneTask& bad : {Done(2, 0, 0), Done(0, 2, 0), Done(0, 1, 1)}) {
    const auto sorted = SortDoneTasks(std::vector<v1::DoneTask>{bad}, TwoJobs());
    EXPECT_TRUE(absl::IsInvalidArgument(sorted.status())) << bad.ShortDebugString();
  }
}

TEST(DoneElsewhereTest, NoDoneTasksGiveEmptyListsForEveryJob) {
  const auto sorted = SortDoneTasks({}, TwoJobs());
  ASSERT_TRUE(sorted.ok());
  ASSERT_EQ(sorted->size(), 2u);
  EXPECT_TRUE((*sorted)[0].empty());
  EXPECT_TRUE((*sorted)[1].empty());
}

}  // namespace
}  // namespace weft::runtime
