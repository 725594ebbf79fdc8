// ScheduleChecker on its checking thread gives the verdict of checking inline:
// the same violations, in the same order, for streams several batches long,
// read at the end or in the middle.
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "metrics/schedule_checker.h"

namespace weft {
namespace {

constexpr uint32_t kTasks = 3 * ScheduleChecker::kBatchRecords + 123;

// One job of kTasks one-core tasks on two one-core machines.
Workload LongWorkload() {
  Workload w;
  const Resources core = *Resources::FromUnits({1, 1, 0, 0});
  w.cluster.AddMachine("m0", RackId(0), core);
  w.cluster.AddMachine("m1", RackId(0), core);
  w.users = {"u"};
  Job job;
  job.name = "j";
  Stage s;
  s.name = "s";
  s.num_tasks = kTasks;
  s.duration_us = 10;
  s.demand = core;
  s.usage = core;
  job.stages = {s};
  job.topo_order = {0};
  job.num_tasks = kTasks;
  w.jobs.clear();
  w.jobs.push_back(job);
  return w;
}

// Feed: task i runs on machine i % 2 from 10 i to 10 i + 10, except that every
// 997th task also starts on the other machine (over capacity and a second
// attempt running) and every 1499th ends twice.
void Feed(ScheduleChecker& c, const Workload& w, uint32_t from, uint32_t to) {
  const Resources d = w.jobs[0].stages[0].demand;
  for (uint32_t i = from; i < to; ++i) {
    const TaskRef t{JobId(0), 0, i};
    const TimeUs at = 10 * static_cast<TimeUs>(i);
    c.OnAttemptStart(AttemptStart{.task = t, .attempt = 0, .machine = MachineId(i % 2), .time_us = at, .demand = d});
    if (i % 997 == 5) {
      c.OnAttemptStart(
          AttemptStart{.task = t, .attempt = 1, .machine = MachineId(1 - i % 2), .time_us = at, .demand = d});
    }
    const AttemptRecord end{.task = t, .attempt = 0, .machine = MachineId(i % 2), .ready_us = 0, .start_us = at,
                            .end_us = at + 10, .demand = d, .usage = d};
    c.OnAttemptEnd(end);
    if (i % 1499 == 7) c.OnAttemptEnd(end);
  }
}

TEST(ScheduleCheckerConcurrentTest, SameVerdictAsInline) {
  const Workload w = LongWorkload();
  ScheduleChecker inline_checker(w, ResourceMask{0}, /*concurrent=*/false);
  ScheduleChecker threaded(w, ResourceMask{0}, /*concurrent=*/true);
  for (ScheduleChecker* c : {&inline_checker, &threaded}) {
    Feed(*c, w, 0, kTasks);
    c->OnJobEnd(JobRecord{.job = JobId(0), .end_us = 10 * static_cast<TimeUs>(kTasks) + 10});
    c->OnRunEnd(10 * static_cast<TimeUs>(kTasks) + 10);
  }
  EXPECT_GT(inline_checker.violation_count(), 40u);
  EXPECT_EQ(threaded.violation_count(), inline_checker.violation_count());
  EXPECT_EQ(threaded.violations(), inline_checker.violations());
  EXPECT_FALSE(threaded.ok());
}

TEST(ScheduleCheckerConcurrentTest, ReadingMidStreamSeesEveryRecordFedSoFar) {
  const Workload w = LongWorkload();
  ScheduleChecker inline_checker(w, ResourceMask{0}, false);
  ScheduleChecker threaded(w, ResourceMask{0}, true);
  const uint32_t half = 2 * ScheduleChecker::kBatchRecords;
  Feed(inline_checker, w, 0, half);
  Feed(threaded, w, 0, half);
  EXPECT_EQ(threaded.violation_count(), inline_checker.violation_count());
  EXPECT_EQ(threaded.violations(), inline_checker.violations());
  Feed(inline_checker, w, half, kTasks);
  Feed(threaded, w, half, kTasks);
  EXPECT_EQ(threaded.violation_count(), inline_checker.violation_count());
}

TEST(ScheduleCheckerConcurrentTest, ValidLongRunPasses) {
  const Workload w = LongWorkload();
  ScheduleChecker c(w, false, true);
  const Resources d = w.jobs[0].stages[0].demand;
  for (uint32_t i = 0; i < kTasks; ++i) {
    const TaskRef t{JobId(0), 0, i};
    const TimeUs at = 10 * static_cast<TimeUs>(i);
    c.OnAttemptStart(AttemptStart{.task = t, .machine = MachineId(0), .time_us = at, .demand = d});
    c.OnAttemptEnd(AttemptRecord{.task = t, .machine = MachineId(0), .start_us = at, .end_us = at + 10, .demand = d});
  }
  c.OnJobEnd(JobRecord{.job = JobId(0), .end_us = 10 * static_cast<TimeUs>(kTasks)});
  c.OnRunEnd(10 * static_cast<TimeUs>(kTasks));
  EXPECT_TRUE(c.ok()) << (c.violations().empty() ? "" : c.violations()[0]);
}

}  // namespace
}  // namespace weft
