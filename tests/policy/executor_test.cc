// Tests for the executor policy (policy/baseline/executor): hand-computed
// schedules on one to three machines, with latency, with machine failures,
// and with a task larger than an executor; plus the bundled TPC-H example in
// both execution models. Every run also passes the schedule checker.
#include <algorithm>
#include <string>
#include <vector>

#include "core/status.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "metrics/schedule_checker.h"
#include "policy/baseline/executor_roles.h"
#include "policy/registry.h"
#include "sim/engine.h"
#include "sim/simulation.h"
#include "trace/workload_reader.h"

namespace weft::policy {
namespace {

constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6 + 0.5); }

class Recorder final : public RunObserver {
 public:
  void OnAttemptEnd(const AttemptRecord& r) override { attempts.push_back(r); }
  void OnJobEnd(const JobRecord& r) override { jobs.push_back(r); }
  std::vector<AttemptRecord> attempts;
  std::vector<JobRecord> jobs;
};

struct RunResult {
  absl::Status status;
  bool checked_ok = false;
  std::string violation;
  sim::RunStats stats;
  Recorder rec;

  // The record of one attempt (the test fails if there is none).
  AttemptRecord Attempt(uint32_t job, uint32_t stage, uint32_t index, uint32_t attempt = 0) const {
    for (const AttemptRecord& r : rec.attempts) {
      if (r.task == TaskRef{JobId(job), stage, index} && r.attempt == attempt) return r;
    }
    ADD_FAILURE() << "no attempt " << attempt << " of task " << job << "/" << stage << "/" << index;
    return {};
  }
  TimeUs JobEnd(uint32_t job) const {
    for (const JobRecord& j : rec.jobs) {
      if (j.job == JobId(job)) return j.end_us;
    }
    ADD_FAILURE() << "job " << job << " never ended";
    return -1;
  }
};

RunResult RunPolicy(const std::string& json, const std::string& policy, const std::vector<std::string>& params,
              sim::SimOptions options = {}) {
  RunResult run;
  auto workload = ParseWorkload(json);
  if (!workload.ok()) {
    run.status = workload.status();
    return run;
  }
  auto built = BuildPolicy(policy, params);
  if (!built.ok()) {
    run.status = built.status();
    return run;
  }
  sim::Engine engine(*workload, *built->policy, options);
  ScheduleChecker checker(*workload, built->policy->overbooked());
  engine.AddObserver(&run.rec);
  engine.AddObserver(&checker);
  run.status = engine.Run();
  run.stats = engine.stats();
  run.checked_ok = checker.ok();
  if (!checker.ok()) run.violation = checker.violations().front();
  return run;
}

RunResult RunExecutor(const std::string& json, const std::vector<std::string>& params, sim::SimOptions options = {}) {
  return RunPolicy(json, "executor", params, options);
}

// `machines` identical machines of `cpu` cores and `mem` GB, and the jobs.
std::string Workload(int machines, int cpu, int mem, const std::string& jobs) {
  return fmt::format(R"({{"weft": 1,
    "cluster": {{"machines": [{{"name": "m", "count": {}, "capacity": {{"cpu": {}, "mem": {}}}}}]}},
    "jobs": [{}]}})",
                     machines, cpu, mem, jobs);
}

// A job of one stage of `tasks` 1-core, 1-GB, 1-second tasks.
std::string FlatJob(const std::string& name, int tasks, double arrival = 0) {
  return fmt::format(R"({{"name": "{}", "arrival": {}, "stages": [
      {{"name": "s", "tasks": {}, "duration": 1, "demand": {{"cpu": 1, "mem": 1}}}}]}})",
                     name, arrival, tasks);
}

const std::vector<std::string> kTwoOfTwoCores = {"executors=2", "executor_cpu=2", "executor_mem=2"};

void ExpectOk(const RunResult& run) {
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_TRUE(run.checked_ok) << run.violation;
  EXPECT_EQ(run.stats.refused_decisions, 0u);
}

TEST(ExecutorPolicyTest, RunsTasksOnePerCoreInsideItsExecutors) {
  // Two 2-core executors, one per 2-core machine: 4 tasks start at 0 (two in
  // each), and the last 2 wait for the first ends at 1 and refill the first
  // executor (m0). fifo would do the same here: the executors are the whole
  // cluster.
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 6)), kTwoOfTwoCores);
  ExpectOk(run);
  for (uint32_t i = 0; i < 4; ++i) {
    const AttemptRecord a = run.Attempt(0, 0, i);
    EXPECT_EQ(a.start_us, 0) << i;
    EXPECT_EQ(a.machine, MachineId(i < 2 ? 0 : 1)) << i;
    EXPECT_TRUE(a.in_container) << i;
  }
  for (uint32_t i = 4; i < 6; ++i) {
    EXPECT_EQ(run.Attempt(0, 0, i).start_us, Sec(1)) << i;
    EXPECT_EQ(run.Attempt(0, 0, i).machine, MachineId(0)) << i;
  }
  EXPECT_EQ(run.JobEnd(0), Sec(2));
}

TEST(ExecutorPolicyTest, ContainersReachTheJobAtTheirMachinesNextHeartbeat) {
  // The same run with a 3 s heartbeat (docs/model.md, "The machine
  // profile"): m0 heartbeats at 0, 3, ... and m1 at 1.5, 4.5, ... Both
  // executors are granted at 0; m0's reaches the job at once and m1's at
  // 1.5 s, so tasks 2 and 3 go into m0's executor when 0 and 1 end (1 s) and
  // 4 and 5 wait for m1's: the job ends at 2.5 s instead of 2.
  sim::SimOptions options;
  options.profile.heartbeat_s = 3;
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 6)), kTwoOfTwoCores, options);
  ExpectOk(run);
  for (uint32_t i = 0; i < 6; ++i) {
    const AttemptRecord a = run.Attempt(0, 0, i);
    EXPECT_EQ(a.machine, MachineId(i < 4 ? 0 : 1)) << i;
    EXPECT_EQ(a.start_us, i < 2 ? 0 : i < 4 ? Sec(1) : Sec(1.5)) << i;
  }
  EXPECT_EQ(run.JobEnd(0), Sec(2.5));
}

TEST(ExecutorPolicyTest, GrantsOnTheFirstMachineWithRoomAndStaysInside) {
  // 4-core machines: both 2-core executors fit m0, so the job runs on m0
  // only and takes 2 s, while fifo spreads to m1 and takes 1 s.
  const std::string w = Workload(2, 4, 8, FlatJob("j", 6));
  const RunResult run = RunExecutor(w, kTwoOfTwoCores);
  ExpectOk(run);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(run.Attempt(0, 0, i).machine, MachineId(0)) << i;
  EXPECT_EQ(run.JobEnd(0), Sec(2));
  const RunResult fifo = RunPolicy(w, "fifo", {});
  ExpectOk(fifo);
  EXPECT_EQ(fifo.JobEnd(0), Sec(1));
}

TEST(ExecutorPolicyTest, LatencyCostsRequestGrantAndLaunch) {
  // One-way latency L = 0.1 s. The job manager starts at 0 and asks; the
  // scheduler hears at L and grants; the manager hears at 2L and launches;
  // tasks start at 3L = 0.3 and end at 1.3. Their ends reach the manager at
  // 1.4, the next launches reach m0 at 1.5 and end at 2.5.
  sim::SimOptions options;
  options.latency_us = Sec(0.1);
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 6)), kTwoOfTwoCores, options);
  ExpectOk(run);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(run.Attempt(0, 0, i).start_us, Sec(0.3)) << i;
  for (uint32_t i = 4; i < 6; ++i) {
    EXPECT_EQ(run.Attempt(0, 0, i).start_us, Sec(1.5)) << i;
    EXPECT_EQ(run.Attempt(0, 0, i).machine, MachineId(0)) << i;
  }
  EXPECT_EQ(run.JobEnd(0), Sec(2.5));
}

TEST(ExecutorPolicyTest, ResponseTimeDelaysEveryGrantButNotTheLaunches) {
  // The container protocol's response time (COBRA's Table I) is the
  // scheduler's: with response_time = 1 s and no latency, the executors are
  // granted at 1, the tasks start at 1 and refill the executors at 2 without
  // waiting again (launching into a held container asks nobody).
  std::vector<std::string> params = kTwoOfTwoCores;
  params.push_back("response_time=1");
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 6)), params);
  ExpectOk(run);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(run.Attempt(0, 0, i).start_us, Sec(1)) << i;
  for (uint32_t i = 4; i < 6; ++i) EXPECT_EQ(run.Attempt(0, 0, i).start_us, Sec(2)) << i;
  EXPECT_EQ(run.JobEnd(0), Sec(3));
}

TEST(ExecutorPolicyTest, SecondJobWaitsForTheFirstJobsExecutors) {
  // ja holds both executors (the whole cluster). Its stage s0 (4 tasks) ends
  // at 1; its stage t (1 task) runs 1-2 and leaves 3 cores idle but held.
  // jb arrives at 0.5 and gets executors only when ja ends at 2: it runs
  // 2-3 on m0. fifo would start jb at 1 on a core s0 left free.
  const std::string ja = R"({"name": "ja", "stages": [
      {"name": "s0", "tasks": 4, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
      {"name": "t", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}, "after": ["s0"]}]})";
  const std::string w = Workload(2, 2, 4, ja + "," + FlatJob("jb", 1, 0.5));
  const RunResult run = RunExecutor(w, {"executors=2", "executor_cpu=2", "executor_mem=4"});
  ExpectOk(run);
  EXPECT_EQ(run.JobEnd(0), Sec(2));
  EXPECT_EQ(run.Attempt(1, 0, 0).start_us, Sec(2));
  EXPECT_EQ(run.Attempt(1, 0, 0).machine, MachineId(0));
  EXPECT_EQ(run.JobEnd(1), Sec(3));
  const RunResult fifo = RunPolicy(w, "fifo", {});
  ExpectOk(fifo);
  EXPECT_EQ(fifo.Attempt(1, 0, 0).start_us, Sec(1));
}

TEST(ExecutorPolicyTest, PartialGrantRunsAtOnceAndGetsTheRestLater) {
  // Three 2-core machines. ja (4 tasks) holds m0 and m1 until 1. jb arrives
  // at 0.5, gets one executor (m2) and starts 2 tasks there at once; its
  // second executor comes when ja ends (m0 at 1): tasks 2-3 run 1-2 on m0,
  // tasks 4-5 follow on m2 at 1.5; jb ends at 2.5.
  const RunResult run = RunExecutor(Workload(3, 2, 4, FlatJob("ja", 4) + "," + FlatJob("jb", 6, 0.5)), kTwoOfTwoCores);
  ExpectOk(run);
  EXPECT_EQ(run.JobEnd(0), Sec(1));
  const std::vector<std::pair<double, int>> expected = {{0.5, 2}, {0.5, 2}, {1, 0}, {1, 0}, {1.5, 2}, {1.5, 2}};
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(run.Attempt(1, 0, i).start_us, Sec(expected[i].first)) << i;
    EXPECT_EQ(run.Attempt(1, 0, i).machine, MachineId(expected[i].second)) << i;
  }
  EXPECT_EQ(run.JobEnd(1), Sec(2.5));
}

TEST(ExecutorPolicyTest, LostExecutorIsReplacedWhenTheMachineReturns) {
  // Executors on m0 and m1; m1 fails at 0.5 (tasks 2-3 killed) and returns
  // at 0.8. The manager asked for a replacement at 0.5; m0 is full, so it is
  // granted on m1 at 0.8, where tasks 2-3 rerun until 1.8.
  sim::SimOptions options;
  options.failures = {{MachineId(1), Sec(0.5), Sec(0.8)}};
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 4)), kTwoOfTwoCores, options);
  ExpectOk(run);
  for (uint32_t i = 2; i < 4; ++i) {
    EXPECT_EQ(run.Attempt(0, 0, i, 0).outcome, Outcome::kKilled) << i;
    EXPECT_EQ(run.Attempt(0, 0, i, 0).end_us, Sec(0.5)) << i;
    EXPECT_EQ(run.Attempt(0, 0, i, 1).start_us, Sec(0.8)) << i;
    EXPECT_EQ(run.Attempt(0, 0, i, 1).machine, MachineId(1)) << i;
  }
  EXPECT_EQ(run.JobEnd(0), Sec(1.8));
}

TEST(ExecutorPolicyTest, LostExecutorsTasksFinishInTheSurvivors) {
  // m1 fails for good at 0.5: the replacement never comes, and tasks 2-3
  // rerun in the executor on m0 when it frees at 1; the job ends at 2.
  sim::SimOptions options;
  options.failures = {{MachineId(1), Sec(0.5), std::nullopt}};
  const RunResult run = RunExecutor(Workload(2, 2, 4, FlatJob("j", 4)), kTwoOfTwoCores, options);
  ExpectOk(run);
  for (uint32_t i = 2; i < 4; ++i) {
    EXPECT_EQ(run.Attempt(0, 0, i, 1).start_us, Sec(1)) << i;
    EXPECT_EQ(run.Attempt(0, 0, i, 1).machine, MachineId(0)) << i;
  }
  EXPECT_EQ(run.JobEnd(0), Sec(2));
}

// Two jobs that each hold an executor the other needs, on a heterogeneous
// cluster after a machine failure (the hold-and-wait the earlier executor
// deadlocked in; random seed 114 in executor_failure_property_test.cc is the
// same shape with five jobs). m0 "wide" has 2 cores and 1 GB, m1 "tall" 1
// core and 2 GB; one executor of 1 core, 1 GB per job.
//   - A (priority 0) sizes its executor to its largest stage, (2, 1): the
//     whole of m0, where a1 starts at 0. m0 fails at 0.5 (back at 2): the
//     replacement executor is cut to m1, (1, 1); a1 reruns there 0.5-1.5.
//     a2 (2 cores) fits no executor m1 can give: A asks for an exact
//     (2, 1) container, which only m0 can hold.
//   - B (priority 1, arrives at 0.6) needs (1, 2), which only m1 can hold,
//     and A holds half of m1. When m0 returns at 2, B comes first and gets
//     m0's free core cut to (1, 1), too little memory for b1; so B asks for
//     an exact (1, 2) container, which only m1 can hold.
// Each holds an idle executor the other needs. Under the idle rule
// (executor.h) A, idle since 1.5 with a ready task none of its executors can
// hold, gives its executor back at 1.5 + 60 (idle_timeout): B's exact
// request takes m1 and b1 runs 61.5-62.5; B's end frees m0 whole, where A's
// request, now only for machines that hold a2, is granted: a2 runs
// 62.5-63.5.
TEST(ExecutorPolicyTest, JobsHoldingEachOthersMachinesGiveBackIdleExecutors) {
  const std::string w = R"({"weft": 1,
    "cluster": {"machines": [{"name": "wide", "capacity": {"cpu": 2, "mem": 1}},
                             {"name": "tall", "capacity": {"cpu": 1, "mem": 2}}]},
    "jobs": [
      {"name": "A", "priority": 0, "stages": [
        {"name": "a1", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
        {"name": "a2", "tasks": 1, "duration": 1, "demand": {"cpu": 2, "mem": 1}, "after": ["a1"]}]},
      {"name": "B", "arrival": 0.6, "priority": 1, "stages": [
        {"name": "b1", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 2}}]}]})";
  sim::SimOptions options;
  options.failures = {{MachineId(0), Sec(0.5), Sec(2)}};
  const RunResult run = RunExecutor(w, {"executors=1", "executor_cpu=1", "executor_mem=1"}, options);
  ExpectOk(run);
  EXPECT_EQ(run.Attempt(0, 0, 0, 0).outcome, Outcome::kKilled);
  EXPECT_EQ(run.Attempt(0, 0, 0, 1).machine, MachineId(1));
  EXPECT_EQ(run.Attempt(0, 0, 0, 1).end_us, Sec(1.5));
  EXPECT_EQ(run.Attempt(1, 0, 0).start_us, Sec(61.5));
  EXPECT_EQ(run.Attempt(1, 0, 0).machine, MachineId(1));
  EXPECT_EQ(run.JobEnd(1), Sec(62.5));
  EXPECT_EQ(run.Attempt(0, 1, 0).start_us, Sec(62.5));
  EXPECT_EQ(run.Attempt(0, 1, 0).machine, MachineId(0));
  EXPECT_EQ(run.JobEnd(0), Sec(63.5));
}

TEST(ExecutorPolicyTest, TaskLargerThanAnExecutorGrowsTheJobsExecutors) {
  // Executors of 2 cores, 4 GB; stage big needs 3 cores, so both executors
  // are 3 cores, 4 GB: one per 4-core machine. s0's 6 tasks all start at 0
  // (3 per executor: with 2-core executors only 4 would), and big runs at 1
  // in the first executor (m0).
  const std::string job = R"({"name": "j", "stages": [
      {"name": "s0", "tasks": 6, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
      {"name": "big", "tasks": 1, "duration": 1, "demand": {"cpu": 3, "mem": 1}, "after": ["s0"]}]})";
  const RunResult run = RunExecutor(Workload(2, 4, 8, job), {"executors=2", "executor_cpu=2", "executor_mem=4"});
  ExpectOk(run);
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(run.Attempt(0, 0, i).start_us, 0) << i;
    EXPECT_EQ(run.Attempt(0, 0, i).machine, MachineId(i < 3 ? 0 : 1)) << i;
  }
  EXPECT_EQ(run.Attempt(0, 1, 0).start_us, Sec(1));
  EXPECT_EQ(run.Attempt(0, 1, 0).machine, MachineId(0));
  EXPECT_EQ(run.JobEnd(0), Sec(2));
}

TEST(ExecutorPolicyTest, StageThatFitsNoHeldContainerAsksForOneMore) {
  // Heterogeneous machines: m0 has 2 cores, m1 4. The 4-core executor is cut
  // to m0's 2 cores (the first machine), where the 3-core task cannot run.
  // With nothing outstanding, the manager asks for a container for it, which
  // m1 holds: the task runs there at once.
  const std::string w = R"({"weft": 1,
    "cluster": {"machines": [{"name": "small", "capacity": {"cpu": 2, "mem": 4}},
                             {"name": "big", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 3, "mem": 1}}]}]})";
  const RunResult run = RunExecutor(w, {"executors=1", "executor_cpu=4", "executor_mem=2"});
  ExpectOk(run);
  EXPECT_EQ(run.Attempt(0, 0, 0).machine, MachineId(1));
  EXPECT_EQ(run.Attempt(0, 0, 0).start_us, 0);
  EXPECT_EQ(run.JobEnd(0), Sec(1));
}

TEST(ExecutorPolicyTest, ExecutorsGetAShareOfDiskBandwidth) {
  // 16-core machine with 200 MB/s of disk: a 4-core executor gets a quarter,
  // 50 MB/s, so only 2 tasks of 20 MB/s fit at once (4 by cores): 4 tasks
  // take 2 s.
  const std::string w = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 16, "mem": 64, "disk": 200}}]},
    "jobs": [{"name": "j", "stages": [
      {"name": "s", "tasks": 4, "duration": 1, "demand": {"cpu": 1, "mem": 1, "disk": 20}}]}]})";
  const RunResult run = RunExecutor(w, {"executors=1"});
  ExpectOk(run);
  EXPECT_EQ(run.Attempt(0, 0, 1).start_us, 0);
  EXPECT_EQ(run.Attempt(0, 0, 2).start_us, Sec(1));
  EXPECT_EQ(run.JobEnd(0), Sec(2));
}

TEST(ExecutorPolicyTest, ContainerSizeOnAddsBandwidthShareAndCutsToTheMachine) {
  const Resources cap = *Resources::FromUnits({16, 64, 200, 1250});
  EXPECT_EQ(ContainerSizeOn(*Resources::FromUnits({4, 8, 12, 0}), cap),
            *Resources::FromUnits({4, 8, 50, 312.5}));
  // A floor above the share keeps its own; one above the machine is cut.
  EXPECT_EQ(ContainerSizeOn(*Resources::FromUnits({4, 8, 80, 0}), cap),
            *Resources::FromUnits({4, 8, 80, 312.5}));
  EXPECT_EQ(ContainerSizeOn(*Resources::FromUnits({64, 128, 0, 0}), cap), cap);
}

TEST(ExecutorPolicyTest, RejectsBadParameters) {
  EXPECT_FALSE(BuildPolicy("executor", {"executors=0"}).ok());
  EXPECT_FALSE(BuildPolicy("executor", {"executor_cpu=0"}).ok());
  EXPECT_FALSE(BuildPolicy("executor", {"executor_mem=-1"}).ok());
  EXPECT_FALSE(BuildPolicy("executor", {"idle_timeout=-1"}).ok());
  EXPECT_TRUE(BuildPolicy("executor", {"idle_timeout=0"}).ok());
  EXPECT_TRUE(BuildPolicy("executor", {"executors=2", "executor_cpu=1.5", "executor_mem=3"}).ok());
}

TEST(ExecutorPolicyTest, TpchSmallCompletesInBothModelsWithAndWithoutLatency) {
  auto workload = ReadWorkloadFile(WEFT_SOURCE_DIR "/examples/tpch-small.json");
  ASSERT_TRUE(workload.ok()) << StatusMessage(workload.status());
  for (sim::ExecutionModel model : {sim::ExecutionModel::kFixed, sim::ExecutionModel::kContention}) {
    for (TimeUs latency : {TimeUs{0}, Sec(0.05)}) {
      sim::SimulationRequest request{.policy = "executor"};
      request.options.model = model;
      request.options.latency_us = latency;
      auto a = sim::Simulate(*workload, request);
      auto b = sim::Simulate(*workload, request);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_TRUE(a->status.ok()) << StatusMessage(a->status);
      EXPECT_EQ(a->summary.jobs, workload->jobs.size());
      EXPECT_EQ(a->stats.refused_decisions, 0u);
      EXPECT_EQ(a->summary.avg_jct, b->summary.avg_jct);
      EXPECT_EQ(a->summary.makespan, b->summary.makespan);
    }
  }
}

TEST(ExecutorPolicyTest, TpchSmallSurvivesMachineFailuresWithLatency) {
  // Machines fail while executors run on them (one for good): lost
  // executors are replaced and every job still completes with a valid
  // schedule, in both models.
  auto workload = ReadWorkloadFile(WEFT_SOURCE_DIR "/examples/tpch-small.json");
  ASSERT_TRUE(workload.ok()) << StatusMessage(workload.status());
  for (sim::ExecutionModel model : {sim::ExecutionModel::kFixed, sim::ExecutionModel::kContention}) {
    sim::SimulationRequest request{.policy = "executor"};
    request.options.model = model;
    request.options.latency_us = Sec(0.05);
    request.options.failures = {{MachineId(0), Sec(5), Sec(40)}, {MachineId(1), Sec(31), std::nullopt},
                                {MachineId(0), Sec(60), Sec(61)}};
    auto result = sim::Simulate(*workload, request);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->status.ok()) << StatusMessage(result->status);
    EXPECT_EQ(result->summary.jobs, workload->jobs.size());
    EXPECT_GT(result->summary.attempts_killed, 0u);
    EXPECT_EQ(result->stats.refused_decisions, 0u);
  }
}

}  // namespace
}  // namespace weft::policy
