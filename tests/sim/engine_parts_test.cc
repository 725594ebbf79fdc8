// File: tests/sim/engine_parts_test.cc
//
// The engine's parts through their own APIs, without an engine: the attempt
// table (slots, generations, per-machine lists), the container table, the
// job tracker (release along barrier and shuffle edges, pipelined
// readiness, recovery) and the decision checker (the refusals, in order).
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "policy/cluster_state.h"
#include "scripted_policy.h"
#include "sim/attempt_table.h"
#include "sim/container_table.h"
#include "sim/decision_checker.h"
#include "sim/job_tracker.h"

namespace weft::sim::scripted {
namespace {

using policy::Address;
using policy::TaskState;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Resources CpuMem(int64_t cpu, int64_t mem) {
  Resources r;
  r.set_micro(kCpu, cpu * kMicroUnits);
  r.set_micro(kMem, mem * kMicroUnits);
  return r;
}

// ---- AttemptTable ----

TEST(AttemptTableTest, FreedSlotIsReusedAndItsOldIdIsStale) {
  AttemptTable t;
  t.SetMachines(2);
  const uint32_t a = t.New(MachineId(0));
  const uint64_t old_id = AttemptTable::Id(a, t[a].generation);
  ASSERT_NE(t.Find(old_id), nullptr);
  t.Free(a);
  EXPECT_EQ(t.Find(old_id), nullptr);  // ended: its id finds nothing
  const uint32_t b = t.New(MachineId(1));
  EXPECT_EQ(b, a);                      // the slot is reused...
  EXPECT_EQ(t.Find(old_id), nullptr);   // ...but the old id stays stale
  const uint64_t new_id = AttemptTable::Id(b, t[b].generation);
  EXPECT_NE(new_id, old_id);
  ASSERT_NE(t.Find(new_id), nullptr);
  EXPECT_EQ(t.Find(new_id)->machine, MachineId(1));
  EXPECT_EQ(t.Find(AttemptTable::Id(7, 0)), nullptr);  // never used
  EXPECT_EQ(AttemptTable::SlotOf(new_id), b);
  EXPECT_EQ(AttemptTable::GenerationOf(new_id), t[b].generation);
}

TEST(AttemptTableTest, KeepsEachMachinesAttempts) {
  AttemptTable t;
  t.SetMachines(2);
  const uint32_t a = t.New(MachineId(0));
  const uint32_t b = t.New(MachineId(1));
  const uint32_t c = t.New(MachineId(0));
  EXPECT_LT(t[a].launch_order, t[c].launch_order);
  const uint32_t d = t.New(MachineId(0));
  EXPECT_THAT(t.OnMachine(MachineId(0)), UnorderedElementsAre(a, c, d));
  EXPECT_EQ(t.live(), 4u);
  t.Free(a);
  EXPECT_THAT(t.OnMachine(MachineId(0)), UnorderedElementsAre(c, d));
  t.Free(d);
  EXPECT_THAT(t.OnMachine(MachineId(0)), ElementsAre(c));
  EXPECT_THAT(t.OnMachine(MachineId(1)), ElementsAre(b));
  EXPECT_EQ(t.live(), 2u);
  t.Free(c);
  EXPECT_THAT(t.OnMachine(MachineId(0)), IsEmpty());
  EXPECT_EQ(t.New(MachineId(0)), c);  // the last freed slot first
  EXPECT_THAT(t.OnMachine(MachineId(0)), ElementsAre(c));
}

// ---- ContainerTable ----

TEST(ContainerTableTest, KeepsAContainersBooksUntilItIsRemoved) {
  ContainerTable t;
  const Resources size = CpuMem(4, 8);
  const ContainerId c = t.Grant(JobId(1), MachineId(2), size, Address::Scheduler(0), 5).id;
  const ContainerId d = t.Grant(JobId(1), MachineId(3), size, Address::Scheduler(0), 6).id;
  EXPECT_NE(c, d);
  EXPECT_EQ(t.SizeOf(c), size);
  EXPECT_EQ(t.SizeOf(ContainerId()), Resources());
  t.AddTask(c, CpuMem(3, 1));
  EXPECT_EQ(t.Find(c)->tasks, 1u);
  // A growth that does not fit the container changes nothing.
  EXPECT_FALSE(t.MoveReservation(c, CpuMem(3, 1), CpuMem(5, 1), CpuMem(2, 0)));
  EXPECT_EQ(t.Find(c)->in_use, CpuMem(3, 1));
  EXPECT_TRUE(t.MoveReservation(c, CpuMem(3, 1), CpuMem(1, 1), Resources()));
  EXPECT_EQ(t.Find(c)->in_use, CpuMem(1, 1));
  EXPECT_THAT(t.OfJob(JobId(1)), ElementsAre(c.value(), d.value()));
  EXPECT_THAT(t.OnMachine(MachineId(3)), ElementsAre(d.value()));
  t.RemoveTask(c, CpuMem(1, 1));
  EXPECT_EQ(t.Remove(c).machine, MachineId(2));
  EXPECT_EQ(t.Find(c), nullptr);
  EXPECT_EQ(t.SizeOf(c), Resources());
}

// ---- JobTracker ----

// Records what the tracker tells the engine.
struct Events final : JobEvents {
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> ready;  // stage, begin, end
  std::vector<uint32_t> shuffle_outputs;                         // child stage per parent task done
  std::vector<uint32_t> shuffle_parents_done;
  std::vector<JobId> completed;
  void TasksReady(JobId, uint32_t stage, uint32_t begin, uint32_t end) override { ready.emplace_back(stage, begin, end); }
  void ShuffleOutputReady(JobId, const Edge& child, MachineId) override { shuffle_outputs.push_back(child.stage); }
  void ShuffleParentsDone(JobId, uint32_t stage) override { shuffle_parents_done.push_back(stage); }
  void JobCompleted(JobId job) override { completed.push_back(job); }
};

Workload TwoStages(const std::string& edge) {
  return Parse(R"({"weft": 1,
    "cluster": {"machines": [{"name": "m0", "capacity": {"cpu": 4, "mem": 8}},
                             {"name": "m1", "capacity": {"cpu": 4, "mem": 8}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "map", "tasks": 4, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
      {"name": "red", "tasks": 2, "duration": 1, "demand": {"cpu": 1, "mem": 1}, "after": [)" +
               edge + "]}]}]}");
}

constexpr JobId kJob(0);
TaskRef Map(uint32_t i) { return TaskRef{kJob, 0, i}; }
TaskRef Red(uint32_t i) { return TaskRef{kJob, 1, i}; }

// Runs map task i through launch, start and an ok end.
void FinishMap(JobTracker& jobs, uint32_t i, TimeUs now) {
  jobs.Launched(Map(i), i);
  jobs.Started(Map(i), now);
  jobs.AttemptEnded(Map(i), Outcome::kOk, 1, 4);
  jobs.TaskDone(Map(i), now, MachineId(0));
}

TEST(JobTrackerTest, ReleasesABarrierChildOnlyAtItsParentsLastTask) {
  const Workload w = TwoStages(R"("map")");
  Events ev;
  JobTracker jobs(w, ev);
  ASSERT_EQ(jobs.FirstArrival(), kJob);
  jobs.Arrive(kJob);
  jobs.ReleaseRoots(kJob, 0);
  EXPECT_THAT(ev.ready, ElementsAre(std::make_tuple(0u, 0u, 4u)));
  for (uint32_t i = 0; i < 3; ++i) FinishMap(jobs, i, 10 + i);
  EXPECT_EQ(ev.ready.size(), 1u);
  EXPECT_EQ(jobs.state(Red(0)), TaskState::kBlocked);
  FinishMap(jobs, 3, 20);
  EXPECT_THAT(ev.ready, ElementsAre(std::make_tuple(0u, 0u, 4u), std::make_tuple(1u, 0u, 2u)));
  EXPECT_EQ(jobs.state(Red(1)), TaskState::kReady);
  // The reducer's ready time is its stage's release.
  EXPECT_EQ(jobs.Launched(Red(0), 9).second, 20);
}

TEST(JobTrackerTest, ReleasesAShuffleChildAtItsSlowStartFraction) {
  const Workload w = TwoStages(R"({"stage": "map", "kind": "shuffle", "slowstart": 0.5})");
  Events ev;
  JobTracker jobs(w, ev);
  jobs.Arrive(kJob);
  jobs.ReleaseRoots(kJob, 0);
  FinishMap(jobs, 0, 1);
  EXPECT_EQ(jobs.state(Red(0)), TaskState::kBlocked);
  FinishMap(jobs, 1, 2);  // 2 of 4 maps: the slow-start fraction
  EXPECT_EQ(jobs.state(Red(0)), TaskState::kReady);
  EXPECT_THAT(ev.shuffle_parents_done, IsEmpty());
  FinishMap(jobs, 2, 3);
  FinishMap(jobs, 3, 4);
  EXPECT_THAT(ev.shuffle_outputs, ElementsAre(1u, 1u, 1u, 1u));  // each map's output, to stage red
  EXPECT_THAT(ev.shuffle_parents_done, ElementsAre(1u));          // the shuffles end at the last map
}

TEST(JobTrackerTest, RetriesUntilMaxAttemptsThenTheJobFails) {
  const Workload w = TwoStages(R"("map")");
  Events ev;
  JobTracker jobs(w, ev);
  jobs.Arrive(kJob);
  jobs.ReleaseRoots(kJob, 0);
  jobs.Launched(Map(0), 0);
  JobTracker::EndVerdict v = jobs.AttemptEnded(Map(0), Outcome::kFailed, 1, 2);
  EXPECT_TRUE(v.retry);
  EXPECT_FALSE(v.job_fails);
  EXPECT_EQ(jobs.SlotOf(Map(0)), kNoAttempt);
  jobs.MakeReady(Map(0), true, 5);
  EXPECT_EQ(jobs.Launched(Map(0), 0).first, 1u);  // the second attempt
  v = jobs.AttemptEnded(Map(0), Outcome::kFailed, 1, 2);
  EXPECT_FALSE(v.retry);
  EXPECT_TRUE(v.job_fails);
  jobs.MarkFailed(kJob);
  jobs.AbandonUndone(kJob);
  EXPECT_EQ(jobs.Finish(kJob), w.jobs[0].arrival_us);  // nothing started
  EXPECT_FALSE(jobs.active(kJob));
  EXPECT_EQ(jobs.state(Red(1)), TaskState::kAbandoned);
  EXPECT_EQ(jobs.unfinished(), 0u);
}

TEST(JobTrackerTest, RecoversDoneTasksAndReleasesWhatTheyAllow) {
  const Workload w = TwoStages(R"("map")");
  Events ev;
  JobTracker jobs(w, ev);
  jobs.Arrive(kJob);
  std::vector<AttemptRecord> history;
  for (uint32_t i = 0; i < 4; ++i) {
    AttemptRecord r;
    r.task = Map(i);
    r.attempt = i == 0 ? 1 : 0;
    r.outcome = Outcome::kOk;
    history.push_back(r);
  }
  EXPECT_EQ(jobs.Recover(kJob, history, 7), 4u);
  EXPECT_EQ(jobs.state(Map(2)), TaskState::kDone);
  EXPECT_THAT(ev.ready, ElementsAre(std::make_tuple(1u, 0u, 2u)));  // the maps are not offered again
}

// ---- DecisionChecker ----

struct CheckerFixture {
  Workload w = TwoStages(R"("map")");
  Script script;
  ScriptedPolicy policy{script};
  policy::ClusterState cluster{w.cluster};
  Events ev;
  JobTracker jobs{w, ev};
  ContainerTable containers;
  AttemptTable attempts;
  DecisionChecker checker{w, policy, cluster, jobs, containers, attempts};
  CheckerFixture() {
    attempts.SetMachines(w.cluster.size());
    jobs.Arrive(kJob);
    jobs.ReleaseRoots(kJob, 0);
  }
  std::string LaunchRefusal(const Address& by, const TaskRef& t, MachineId m, ContainerId c = ContainerId()) {
    Resources reserve;
    const absl::Status r = checker.Launch(by, t, m, c, [](MachineId) { return false; }, reserve);
    EXPECT_TRUE(r.ok() || absl::IsFailedPrecondition(r));
    return std::string(r.message());
  }
};

TEST(DecisionCheckerTest, RefusesALaunchOnAFullMachine) {
  CheckerFixture f;
  const Address s = Address::Scheduler(0);
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(0)), "");
  f.cluster.Allocate(MachineId(0), CpuMem(4, 0));
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(0)), "the task does not fit in what is free on m0");
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(1)), "");
  f.cluster.SetUp(MachineId(1), false);
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(1)), "machine m1 is down");
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(5)), "no such machine");
}

TEST(DecisionCheckerTest, RefusesATaskThatIsNotReady) {
  CheckerFixture f;
  EXPECT_EQ(f.LaunchRefusal(Address::Scheduler(0), Red(0), MachineId(0)), "task j/red/0 of job j is not ready");
  EXPECT_EQ(f.LaunchRefusal(Address::Scheduler(0), TaskRef{kJob, 0, 9}, MachineId(0)), "task 0/0/9 does not exist");
  EXPECT_EQ(f.LaunchRefusal(Address::Scheduler(0), TaskRef{JobId(3), 0, 0}, MachineId(0)), "job 3 is not active");
  EXPECT_EQ(std::string(f.checker.Kill(Map(0)).status().message()), "the task is not launched or running");
}

TEST(DecisionCheckerTest, RefusesALaunchIntoAForeignOrFullContainer) {
  CheckerFixture f;
  const Address s = Address::Scheduler(0);
  const ContainerId foreign = f.containers.Grant(JobId(5), MachineId(0), CpuMem(2, 2), s, 0).id;
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(0), foreign), "the container belongs to another job");
  const ContainerId small = f.containers.Grant(kJob, MachineId(0), CpuMem(1, 1), s, 0).id;
  EXPECT_EQ(f.LaunchRefusal(s, Map(0), MachineId(0), small), "");
  f.containers.AddTask(small, CpuMem(1, 1));
  EXPECT_EQ(f.LaunchRefusal(s, Map(1), MachineId(0), small), "the task does not fit in the container");
  EXPECT_EQ(std::string(f.checker.ContainerMachine(ContainerId(99)).status().message()),
            "container 99 does not exist");
  EXPECT_EQ(std::string(f.checker.Release(s, small).status().message()), "the container still runs tasks");
  EXPECT_EQ(std::string(f.checker.Release(Address::Scheduler(1), foreign).status().message()),
            "only the container's job manager or granter may release it");
}

TEST(DecisionCheckerTest, ChecksWhoDecides) {
  CheckerFixture f;
  EXPECT_EQ(f.LaunchRefusal(Address::JobManager(JobId(4)), Map(0), MachineId(0)),
            "a job manager may launch only its own job's tasks");
  EXPECT_EQ(f.LaunchRefusal(Address::Node(MachineId(1)), Map(0), MachineId(0)),
            "a node agent may launch only on its own machine");
  EXPECT_EQ(f.checker.Grant(Address::JobManager(kJob), kJob, MachineId(0), CpuMem(1, 1)).message(),
            "only a cluster scheduler grants containers");
  EXPECT_EQ(f.checker.StartPhase(Address::Scheduler(0), Map(0)).status().message(), "only node agents start phases");
}

TEST(DecisionCheckerTest, StartsOnlyAPhaseThatWasAnnounced) {
  // A node agent may start the task's current phase only once it is ready
  // (announced by OnPhaseReady): not while the attempt reads, shuffles, waits
  // for room or runs.
  CheckerFixture f;
  const uint32_t slot = f.attempts.New(MachineId(0));
  Attempt& a = f.attempts[slot];
  a.task = Map(0);
  f.jobs.Launched(Map(0), slot);
  f.jobs.Started(Map(0), 0);
  const Address node = Address::Node(MachineId(0));
  const auto refusal = [&] { return std::string(f.checker.StartPhase(node, Map(0)).status().message()); };
  a.MoveTo(AttemptState::kArrived);
  EXPECT_EQ(refusal(), "the task's current phase is not ready");
  a.MoveTo(AttemptState::kShuffling);
  EXPECT_EQ(refusal(), "the task's current phase is not ready");
  a.MoveTo(AttemptState::kShufflingPhaseReady);
  EXPECT_EQ(refusal(), "");
  a.MoveTo(AttemptState::kShufflingRunning);
  EXPECT_EQ(refusal(), "the task's current phase is already running");
  a.MoveTo(AttemptState::kPhaseWaitsShuffle);
  EXPECT_EQ(refusal(), "the task's current phase is not ready");
  a.MoveTo(AttemptState::kPhaseReady);
  EXPECT_EQ(refusal(), "");
  EXPECT_EQ(std::string(f.checker.StartPhase(Address::Node(MachineId(1)), Map(0)).status().message()),
            "the task runs on another machine");
  a.MoveTo(AttemptState::kParked);
  EXPECT_EQ(refusal(), "the task's current phase is already running");
}

}  // namespace
}  // namespace weft::sim::scripted
