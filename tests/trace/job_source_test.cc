// File: tests/trace/job_source_test.cc
//
// The JobSource interface (model/job_source.h) as the engine's job tracker
// uses it: a whole workload's jobs in arrival order (file order at ties),
// the end, Peek; and the tracker taking jobs only as they arrive and
// releasing an ended job's state (its live-run counter) after the grace.
#include "model/job_source.h"

#include "core/status.h"
#include "policy/job_view.h"
#include "gmock/gmock.h"
#include "sim/job_tracker.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

using sim::JobTracker;

Workload Jobs(const std::string& jobs) {
  auto w = ParseWorkload(R"({"weft": 1, "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 4, "mem": 8}}]},
    "jobs": [)" + jobs + "]}");
  EXPECT_TRUE(w.ok()) << StatusMessage(w.status());
  return *w;
}

std::string Job(const std::string& name, double arrival) {
  return R"({"name": ")" + name + R"(", "arrival": )" + std::to_string(arrival) +
         R"(, "stages": [{"name": "s", "tasks": 2, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]})";
}

TEST(WorkloadSourceTest, ArrivalOrderFileOrderAtTiesThenTheEnd) {
  const Workload w = Jobs(Job("a", 5) + "," + Job("b", 1) + "," + Job("c", 5) + "," + Job("d", 0));
  WorkloadSource source(w);
  EXPECT_EQ(source.Peek(), JobId(3));
  EXPECT_EQ(source.Peek(), JobId(3));  // Peek takes nothing
  EXPECT_EQ(source.Next(), JobId(3));
  EXPECT_EQ(source.Next(), JobId(1));
  EXPECT_EQ(source.Next(), JobId(0));
  EXPECT_EQ(source.Next(), JobId(2));
  EXPECT_EQ(source.Next(), std::nullopt);
  EXPECT_EQ(source.Peek(), std::nullopt);
  EXPECT_FALSE(source.HasPhases());
  EXPECT_TRUE(source.status().ok());
}

struct NoEvents final : sim::JobEvents {
  std::vector<JobId> completed;
  void TasksReady(JobId, uint32_t, uint32_t, uint32_t) override {}
  void ShuffleOutputReady(JobId, const Edge&, MachineId) override {}
  void ShuffleParentsDone(JobId, uint32_t) override {}
  void JobCompleted(JobId job) override { completed.push_back(job); }
};

// CountingSource: a WorkloadSource that counts what it was asked for.
class CountingSource final : public JobSource {
 public:
  explicit CountingSource(const Workload& w) : inner_(w) {}
  const Workload& workload() const override { return inner_.workload(); }
  bool HasPhases() const override { return false; }
  uint64_t LiveJobs() const override { return inner_.workload().jobs.size() - released.size(); }
  void Release(std::span<const JobId> jobs) override { released.insert(released.end(), jobs.begin(), jobs.end()); }
  int pulls = 0;
  std::vector<JobId> released;

 protected:
  std::optional<JobId> Pull() override {
    ++pulls;
    return inner_.Next();
  }

 private:
  WorkloadSource inner_;
};

void RunToEnd(JobTracker& jobs, JobId id, TimeUs now) {
  for (uint32_t i = 0; i < 2; ++i) {
    const TaskRef t{id, 0, i};
    jobs.Launched(t, i);
    jobs.Started(t, now);
    jobs.AttemptEnded(t, Outcome::kOk, 1, 4);
    jobs.TaskDone(t, now, MachineId(0));
  }
}

TEST(JobTrackerSourceTest, TakesAJobOnlyWhenTheOneBeforeArrives) {
  const Workload w = Jobs(Job("a", 0) + "," + Job("b", 10) + "," + Job("c", 20));
  CountingSource source(w);
  NoEvents ev;
  JobTracker jobs(w, ev);
  jobs.SetSource(source);
  EXPECT_EQ(source.pulls, 0);
  EXPECT_EQ(jobs.FirstArrival(), JobId(0));
  EXPECT_EQ(jobs.FirstArrival(), JobId(0));  // asked once of the source
  EXPECT_EQ(source.pulls, 1);
  EXPECT_EQ(jobs.unfinished(), 1u);  // the pending arrival keeps the run going
  EXPECT_EQ(jobs.NextArrival(), JobId(1));
  EXPECT_EQ(source.pulls, 2);
  EXPECT_EQ(jobs.unfinished(), 2u);
}

TEST(JobTrackerSourceTest, ReleasesAnEndedJobAfterTheGraceInBatches) {
  const Workload w = Jobs(Job("a", 0) + "," + Job("b", 10) + "," + Job("c", 20) + "," + Job("d", 100));
  CountingSource source(w);
  NoEvents ev;
  JobTracker jobs(w, ev);
  jobs.SetSource(source);
  jobs.SetReleaseGrace(5 * kUsPerSecond, 2);
  auto arrive = [&](JobId id, TimeUs now) {
    jobs.Arrive(id);
    jobs.ReleaseRoots(id, now);
  };
  ASSERT_EQ(jobs.FirstArrival(), JobId(0));
  arrive(JobId(0), 0);
  RunToEnd(jobs, JobId(0), 1 * kUsPerSecond);
  jobs.Finish(JobId(0));
  EXPECT_EQ(jobs.LiveRuns(), 1u);  // ended, held until released
  arrive(JobId(1), 10 * kUsPerSecond);  // job 0 ended by now; due at 15 s
  RunToEnd(jobs, JobId(1), 11 * kUsPerSecond);
  jobs.Finish(JobId(1));
  arrive(JobId(2), 20 * kUsPerSecond);  // job 0 due, job 1 stamped now: one due, the batch is two
  EXPECT_TRUE(source.released.empty());
  EXPECT_EQ(jobs.LiveRuns(), 3u);  // the active job 2; 0 and 1 ended, still held
  RunToEnd(jobs, JobId(2), 21 * kUsPerSecond);
  jobs.Finish(JobId(2));
  arrive(JobId(3), 100 * kUsPerSecond);  // 0 and 1 due (2 stamped now): released together
  EXPECT_THAT(source.released, ::testing::ElementsAre(JobId(0), JobId(1)));
  EXPECT_EQ(jobs.LiveRuns(), 2u);  // 2 (ended, not due) and 3
  // A released job's view: finished, not failed, nothing else.
  const sim::JobRun* run = jobs.run(JobId(0));
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->progress->finished);
  EXPECT_FALSE(run->progress->failed);
  EXPECT_TRUE(run->progress->tasks.empty());
  // A policy still holding one of its tasks reads it as done, its stages as
  // empty, never past the released lists.
  const policy::KnowledgeOptions options;
  const policy::JobView view(JobId(0), w.jobs[0], *run->progress, policy::Knowledge::kClairvoyant, options);
  EXPECT_EQ(view.state(TaskRef{JobId(0), 0, 1}), policy::TaskState::kDone);
  EXPECT_EQ(view.stage_progress(0).running, 0u);
  EXPECT_EQ(view.stage_progress(0).done, 0u);
  EXPECT_FALSE(jobs.active(JobId(0)));
  EXPECT_TRUE(jobs.active(JobId(3)));
  EXPECT_EQ(jobs.run(JobId(2))->progress->tasks.size(), 2u);  // ended, not released yet
}

TEST(JobTrackerSourceTest, CountsTheTasksOfJobsThatNeverArrived) {
  const Workload w = Jobs(Job("a", 0) + "," + Job("b", 10) + "," + Job("c", 20));
  CountingSource source(w);
  NoEvents ev;
  JobTracker jobs(w, ev);
  jobs.SetSource(source);
  ASSERT_EQ(jobs.FirstArrival(), JobId(0));
  jobs.Arrive(JobId(0));
  jobs.ReleaseRoots(JobId(0), 0);
  ASSERT_EQ(jobs.NextArrival(), JobId(1));
  // Run over with job 0 active, job 1 due, job 2 not taken yet: 6 tasks.
  EXPECT_EQ(jobs.UnfinishedTasks(), 6u);
  EXPECT_EQ(jobs.unfinished(), 3u);
}

}  // namespace
}  // namespace weft
