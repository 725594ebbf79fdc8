// File: tests/metrics/schedule_checker_test.cc
//
// Tests for ScheduleChecker: a valid schedule passes, and each kind of
// violation is caught with a message naming the offending task. Workloads are
// tiny and built in code. Single-threaded.
#include "metrics/schedule_checker.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6); }

Resources Units(double cpu, double mem = 0) {
  return Resources::FromUnits({cpu, mem, 0, 0}).value();
}

Stage MakeStage(std::string name, uint32_t tasks, double cpu) {
  Stage s;
  s.name = std::move(name);
  s.num_tasks = tasks;
  s.duration_us = Sec(1);
  s.demand = Units(cpu);
  s.usage = s.demand;
  return s;
}

void Connect(Job& job, uint32_t parent, uint32_t child, EdgeKind kind) {
  job.stages[parent].children.push_back(Edge{child, kind});
  job.stages[child].parents.push_back(Edge{parent, kind});
}

Job MakeJob(std::string name, std::vector<Stage> stages) {
  Job job;
  job.name = std::move(name);
  job.user = UserId(0);
  job.stages = std::move(stages);
  for (uint32_t s = 0; s < job.stages.size(); ++s) {
    job.topo_order.push_back(s);
    job.num_tasks += job.stages[s].num_tasks;
  }
  return job;
}

// Machines m0 (4 cpu) and m1 (2 cpu). Job 0 "q1": scan (2 tasks, 2 cpu) ->
// barrier -> agg (2 tasks, 2 cpu). Job 1 "p": map (2 tasks, 1 cpu) ->
// pipelined -> reduce (2 tasks, 1 cpu). Both arrive at 0.
Workload TestWorkload() {
  Workload w;
  w.cluster.AddMachine("m0", RackId(0), Units(4, 8));
  w.cluster.AddMachine("m1", RackId(0), Units(2, 4));
  w.users = {"u"};
  Job q1 = MakeJob("q1", {MakeStage("scan", 2, 2), MakeStage("agg", 2, 2)});
  Connect(q1, 0, 1, EdgeKind::kBarrier);
  Job p = MakeJob("p", {MakeStage("map", 2, 1), MakeStage("reduce", 2, 1)});
  Connect(p, 0, 1, EdgeKind::kPipelined);
  w.jobs.clear();
  w.jobs.push_back(std::move(q1));
  w.jobs.push_back(std::move(p));
  return w;
}

constexpr uint32_t kQ1 = 0, kP = 1;
constexpr uint32_t kScan = 0, kAgg = 1, kMap = 0, kReduce = 1;

class ScheduleCheckerTest : public ::testing::Test {
 protected:
  void AllowOverbooking() { checker_ = std::make_unique<ScheduleChecker>(workload_, kAllResources); }

  Resources StageDemand(uint32_t job, uint32_t stage) const {
    return workload_.jobs[job].stages[stage].demand;
  }

  void Start(uint32_t job, uint32_t stage, uint32_t index, uint32_t machine, double t,
             uint32_t attempt = 0, std::optional<Resources> demand = std::nullopt) {
    checker_->OnAttemptStart(AttemptStart{.task = TaskRef{JobId(job), stage, index},
                                          .attempt = attempt,
                                          .machine = MachineId(machine),
                                          .time_us = Sec(t),
                                          .demand = demand.value_or(StageDemand(job, stage))});
  }

  void End(uint32_t job, uint32_t stage, uint32_t index, uint32_t machine, double start, double end,
           Outcome outcome = Outcome::kOk, uint32_t attempt = 0,
           std::optional<Resources> demand = std::nullopt) {
    checker_->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(job), stage, index},
                                         .attempt = attempt,
                                         .machine = MachineId(machine),
                                         .ready_us = 0,
                                         .start_us = Sec(start),
                                         .end_us = Sec(end),
                                         .outcome = outcome,
                                         .demand = demand.value_or(StageDemand(job, stage)),
                                         .usage = StageDemand(job, stage)});
  }

  void EndJob(uint32_t job, double t, bool succeeded = true) {
    checker_->OnJobEnd(JobRecord{.job = JobId(job),
                                 .arrival_us = workload_.jobs[job].arrival_us,
                                 .start_us = 0,
                                 .end_us = Sec(t),
                                 .succeeded = succeeded});
  }

  const std::vector<std::string>& violations() const { return checker_->violations(); }

  Workload workload_ = TestWorkload();
  std::unique_ptr<ScheduleChecker> checker_ = std::make_unique<ScheduleChecker>(workload_, ResourceMask{0});
};

TEST_F(ScheduleCheckerTest, ValidScheduleHasNoViolations) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);  // m1 exactly full
  Start(kP, kMap, 0, 0, 0);
  End(kQ1, kScan, 0, 0, 0, 1);
  End(kP, kMap, 0, 0, 0, 1);
  Start(kP, kMap, 1, 0, 1);
  Start(kP, kReduce, 0, 0, 1);  // pipelined: only map task 0 is needed
  End(kQ1, kScan, 1, 1, 0, 2);
  Start(kQ1, kAgg, 0, 0, 2);  // m0 exactly full
  Start(kQ1, kAgg, 1, 1, 2);
  End(kP, kMap, 1, 0, 1, 3);
  End(kP, kReduce, 0, 0, 1, 3);
  Start(kP, kReduce, 1, 0, 3);
  End(kQ1, kAgg, 0, 0, 2, 4);
  End(kQ1, kAgg, 1, 1, 2, 4);
  End(kP, kReduce, 1, 0, 3, 4);
  EndJob(kQ1, 4);
  EndJob(kP, 4);
  checker_->OnRunEnd(Sec(4));
  EXPECT_TRUE(checker_->ok());
  EXPECT_THAT(violations(), IsEmpty());
  EXPECT_EQ(checker_->violation_count(), 0u);
}

TEST_F(ScheduleCheckerTest, BarrierParentNotDoneIsCaught) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);
  End(kQ1, kScan, 0, 0, 0, 1);
  Start(kQ1, kAgg, 0, 0, 1.5);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"agg\" task 0 started at 1.500000 s "
                                        "on m0 before parent stage \"scan\" finished"));
}

TEST_F(ScheduleCheckerTest, PipelinedParentNotDoneIsCaught) {
  Start(kP, kMap, 0, 0, 0);
  Start(kP, kMap, 1, 0, 0);
  End(kP, kMap, 1, 0, 0, 0.5);
  Start(kP, kReduce, 0, 1, 0.5);  // map task 1 is done, but task 0 is not
  EXPECT_THAT(violations(),
              ElementsAre("job \"p\" stage \"reduce\" task 0 started at 0.500000 s on m1 before "
                          "task 0 of pipelined parent stage \"map\" finished"));
}

TEST_F(ScheduleCheckerTest, PipelinedChildMayStartWhenOnlyItsParentTaskIsDone) {
  Start(kP, kMap, 0, 0, 0);
  Start(kP, kMap, 1, 0, 0);
  End(kP, kMap, 1, 0, 0, 1);
  Start(kP, kReduce, 1, 0, 1);  // map task 0 still runs
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

// q1's scan -> agg made a shuffle edge with slow start 0.5: agg may start
// when one of scan's two tasks is done, and end ok only after both are.
class ShuffleCheckerTest : public ScheduleCheckerTest {
 protected:
  void SetUp() override {
    for (Edge* e : {&workload_.jobs[kQ1].stages[kScan].children[0], &workload_.jobs[kQ1].stages[kAgg].parents[0]}) {
      e->kind = EdgeKind::kShuffle;
      e->slowstart = 0.5;
    }
    checker_ = std::make_unique<ScheduleChecker>(workload_, ResourceMask{0});
  }
};

TEST_F(ShuffleCheckerTest, ChildMayStartAtSlowStartAndEndAfterTheLastParent) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);
  End(kQ1, kScan, 0, 0, 0, 1);
  Start(kQ1, kAgg, 0, 0, 1);
  End(kQ1, kScan, 1, 1, 0, 2);
  End(kQ1, kAgg, 0, 0, 1, 3);
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

TEST_F(ShuffleCheckerTest, ChildStartingBeforeSlowStartIsCaught) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kAgg, 0, 1, 0.5);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"agg\" task 0 started at 0.500000 s on m1 with 0 of 2 "
                                        "tasks of shuffle parent stage \"scan\" done, before its slow-start "
                                        "threshold 1"));
}

TEST_F(ShuffleCheckerTest, ChildEndingOkBeforeTheLastParentIsCaught) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);
  End(kQ1, kScan, 0, 0, 0, 1);
  Start(kQ1, kAgg, 0, 0, 1);
  End(kQ1, kAgg, 0, 0, 1, 1.5);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"agg\" task 0 ended ok at 1.500000 s on m0 before "
                                        "shuffle parent stage \"scan\" finished"));
}

TEST_F(ScheduleCheckerTest, OverCapacityOnMachineIsCaught) {
  Start(kQ1, kScan, 0, 1, 0);  // m1: 2 of 2 cpu
  Start(kP, kMap, 0, 1, 0);    // m1: 3 of 2 cpu
  ASSERT_EQ(checker_->violation_count(), 1u);
  EXPECT_THAT(violations()[0], HasSubstr("job \"p\" stage \"map\" task 0 started at 0.000000 s "
                                         "on m1 over the machine's capacity"));
  // Once the first attempt has left, the machine has room again.
  End(kQ1, kScan, 0, 1, 0, 1);
  Start(kP, kMap, 1, 1, 1);
  EXPECT_EQ(checker_->violation_count(), 1u);
}

TEST_F(ScheduleCheckerTest, OverbookingAllowsSumsButNotATooBigSingleDemand) {
  AllowOverbooking();
  Start(kQ1, kScan, 0, 1, 0);
  Start(kP, kMap, 0, 1, 0);
  EXPECT_TRUE(checker_->ok()) << violations()[0];
  Start(kP, kMap, 1, 1, 0, /*attempt=*/0, Units(3));
  EXPECT_THAT(violations(), ElementsAre(HasSubstr(
                                "job \"p\" stage \"map\" task 1 started at 0.000000 s on m1 with "
                                "demand cpu=3 that exceeds the machine's capacity")));
}

// Two scans of 2 cpu overbooked on m1 (2 cpu) that both end after 1 s
// having used 2 cpu each: 4 core-seconds in 1 s on 2 cores, work from
// nothing, whatever the policy may overbook. The same two sharing the cores
// (1 cpu each, ending at 2 s) conserve it.
TEST_F(ScheduleCheckerTest, WorkBeyondAMachinesCapacityIsCaughtEvenWhenOverbooking) {
  AllowOverbooking();
  const auto end = [&](uint32_t index, double at, double cpu_used) {
    checker_->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(kQ1), kScan, index},
                                         .machine = MachineId(1),
                                         .start_us = 0,
                                         .end_us = Sec(at),
                                         .demand = StageDemand(kQ1, kScan),
                                         .usage = Units(cpu_used)});
  };
  Start(kQ1, kScan, 0, 1, 0);
  Start(kQ1, kScan, 1, 1, 0);
  end(0, 1, 2);
  EXPECT_TRUE(checker_->ok()) << "the busy period is still open";
  end(1, 1, 2);
  EXPECT_THAT(violations(), ElementsAre(HasSubstr("m1 delivered 4.000 core-seconds of cpu from 0.000000 to "
                                                  "1.000000 s, more than its capacity allows (2.000)")));
}

TEST_F(ScheduleCheckerTest, SharedCoresThatStretchConserveWork) {
  AllowOverbooking();
  Start(kQ1, kScan, 0, 1, 0);
  Start(kQ1, kScan, 1, 1, 0);
  for (uint32_t i = 0; i < 2; ++i) {
    checker_->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(kQ1), kScan, i},
                                         .machine = MachineId(1),
                                         .start_us = 0,
                                         .end_us = Sec(2),
                                         .demand = StageDemand(kQ1, kScan),
                                         .usage = Units(1)});
  }
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

TEST_F(ScheduleCheckerTest, TaskEndingOkTwiceIsCaught) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 0, 1, 0, /*attempt=*/1);
  End(kQ1, kScan, 0, 0, 0, 1);
  End(kQ1, kScan, 0, 1, 0, 2, Outcome::kOk, /*attempt=*/1);
  EXPECT_THAT(violations(), Contains("job \"q1\" stage \"scan\" task 0 attempt 1 ended ok at "
                                     "2.000000 s on m1 but the task had already ended ok"));
}

TEST_F(ScheduleCheckerTest, TaskMissingAtSucceededJobEndIsCaught) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);
  End(kQ1, kScan, 0, 0, 0, 1);
  End(kQ1, kScan, 1, 1, 0, 1);
  Start(kQ1, kAgg, 0, 0, 1);
  End(kQ1, kAgg, 0, 0, 1, 2);
  EndJob(kQ1, 2);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"agg\" task 1 never ended ok, yet its "
                                        "job succeeded at 2.000000 s"));
}

TEST_F(ScheduleCheckerTest, FailedJobMayEndWithTasksMissing) {
  Start(kQ1, kScan, 0, 0, 0);
  End(kQ1, kScan, 0, 0, 0, 1, Outcome::kFailed);
  EndJob(kQ1, 1, /*succeeded=*/false);
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

TEST_F(ScheduleCheckerTest, JobNeverEndedIsCaughtAtRunEnd) {
  EndJob(kQ1, 0, /*succeeded=*/false);
  checker_->OnRunEnd(Sec(7));
  EXPECT_THAT(violations(), ElementsAre("run ended at 7.000000 s with 1 of 2 jobs not ended, the "
                                        "first job \"p\""));
}

TEST_F(ScheduleCheckerTest, AttemptStillRunningIsCaughtAtRunEnd) {
  Start(kP, kMap, 0, 0, 0);
  EndJob(kQ1, 0, /*succeeded=*/false);
  EndJob(kP, 1, /*succeeded=*/false);
  checker_->OnRunEnd(Sec(1));
  EXPECT_THAT(violations(), ElementsAre(HasSubstr("1 attempts still running, among them job \"p\" "
                                                  "stage \"map\" task 0 attempt 0 on m0")));
}

TEST_F(ScheduleCheckerTest, RetryAfterFailedAttemptIsFine) {
  Start(kQ1, kScan, 0, 0, 0);
  Start(kQ1, kScan, 1, 1, 0);
  End(kQ1, kScan, 0, 0, 0, 1, Outcome::kFailed);
  End(kQ1, kScan, 1, 1, 0, 1);
  Start(kQ1, kScan, 0, 1, 1, /*attempt=*/1);
  End(kQ1, kScan, 0, 1, 1, 2, Outcome::kOk, /*attempt=*/1);
  Start(kQ1, kAgg, 0, 0, 2);
  Start(kQ1, kAgg, 1, 0, 2);
  End(kQ1, kAgg, 0, 0, 2, 3);
  End(kQ1, kAgg, 1, 0, 2, 3);
  EndJob(kQ1, 3);
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

TEST_F(ScheduleCheckerTest, KilledBeforeStartIsFine) {
  End(kQ1, kScan, 0, 0, 1, 1, Outcome::kKilled);
  EXPECT_TRUE(checker_->ok()) << violations()[0];
}

TEST_F(ScheduleCheckerTest, ConcurrentSecondAttemptIsCaught) {
  Start(kQ1, kScan, 1, 0, 0);
  Start(kQ1, kScan, 1, 1, 0.25, /*attempt=*/1);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"scan\" task 1 started at 0.250000 s on "
                                        "m1 while another attempt of it is still running"));
}

TEST_F(ScheduleCheckerTest, StartAfterTaskDoneIsCaught) {
  Start(kQ1, kScan, 1, 0, 0);
  End(kQ1, kScan, 1, 0, 0, 1);
  Start(kQ1, kScan, 1, 0, 1, /*attempt=*/1);
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"scan\" task 1 started at 1.000000 s on "
                                        "m0 after it had already ended ok"));
}

TEST_F(ScheduleCheckerTest, EndBeforeStartIsCaught) {
  Start(kQ1, kScan, 0, 0, 2);
  End(kQ1, kScan, 0, 0, 2, 1);
  EXPECT_THAT(violations(), Contains("job \"q1\" stage \"scan\" task 0 attempt 0 ended at "
                                     "1.000000 s on m0 before it started at 2.000000 s"));
}

TEST_F(ScheduleCheckerTest, EndMustMatchTheRunningAttempt) {
  Start(kQ1, kScan, 0, 0, 0);
  End(kQ1, kScan, 0, 1, 0, 1);  // wrong machine
  EXPECT_THAT(violations(), ElementsAre("job \"q1\" stage \"scan\" task 0 attempt 0 ended at "
                                        "1.000000 s on m1 but started on m0"));
  End(kQ1, kScan, 1, 0, 0, 1, Outcome::kFailed, /*attempt=*/3);  // never started
  EXPECT_THAT(violations()[1], HasSubstr("task 1 attempt 3 ended at 1.000000 s on m0 (failed) but "
                                         "was not running"));
}

TEST_F(ScheduleCheckerTest, StartBeforeArrivalIsCaught) {
  workload_.jobs[kP].arrival_us = Sec(5);
  Start(kP, kMap, 0, 0, 4);
  EXPECT_THAT(violations(),
              ElementsAre("job \"p\" stage \"map\" task 0 started at 4.000000 s on m0 "
                          "before its job arrived at 5.000000 s"));
}

TEST_F(ScheduleCheckerTest, StartBeforeReadyIsCaught) {
  Start(kP, kMap, 0, 0, 1);
  checker_->OnAttemptEnd(AttemptRecord{.task = TaskRef{JobId(kP), kMap, 0},
                                       .machine = MachineId(0),
                                       .ready_us = Sec(1.5),
                                       .start_us = Sec(1),
                                       .end_us = Sec(2),
                                       .demand = StageDemand(kP, kMap)});
  EXPECT_THAT(violations(), ElementsAre("job \"p\" stage \"map\" task 0 attempt 0 started at "
                                        "1.000000 s on m0 before it was ready at 1.500000 s"));
}

TEST_F(ScheduleCheckerTest, UnknownTaskIsCaught) {
  Start(kP, kMap, 2, 0, 0);  // map has tasks 0 and 1 only
  EXPECT_THAT(violations(), ElementsAre(HasSubstr("unknown task (job 1 stage 0 task 2)")));
}

TEST_F(ScheduleCheckerTest, RecordsOutOfTimeOrderAreCaught) {
  Start(kP, kMap, 0, 0, 2);
  Start(kP, kMap, 1, 0, 1);
  EXPECT_THAT(violations(), ElementsAre(HasSubstr("attempt start at 1.000000 s arrived after a "
                                                  "record at 2.000000 s")));
}

TEST_F(ScheduleCheckerTest, KeepsTheFirstMessagesAndCountsAll) {
  for (int i = 0; i < 30; ++i) Start(kP, kMap, 100 + i, 0, 0);
  EXPECT_EQ(violations().size(), ScheduleChecker::kMaxMessages);
  EXPECT_EQ(checker_->violation_count(), 30u);
  EXPECT_THAT(violations()[0], HasSubstr("task 100)"));
  EXPECT_FALSE(checker_->ok());
}

}  // namespace
}  // namespace weft
