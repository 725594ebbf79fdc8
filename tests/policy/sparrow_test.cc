// File: tests/policy/sparrow_test.cc
//
// The four Sparrow policies on tiny clusters whose probe choices are forced:
// every node is probed (d·m = cluster size) or a task's locality list leaves
// one candidate, so each schedule can be computed by hand. Covers late
// binding's hand-out order and no-op replies, proactive cancellation,
// least-loaded placement for per-task and batch sampling, the node-side
// priority and fair queues (§4.2), constraints (§4.1), fractional probe
// ratios, and latency costing what the messages cost. Schedule checker
// attached to every run.
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"
#include "model/job_source.h"

namespace weft::policy::testing {
namespace {

struct SparrowRun {
  Run run;
  sim::RunStats stats;
};

SparrowRun RunSparrow(const std::string& json, const std::string& policy, const std::vector<std::string>& params,
                      sim::SimOptions options = {}) {
  SparrowRun out;
  auto workload = ParseWorkload(json);
  EXPECT_TRUE(workload.ok()) << StatusMessage(workload.status());
  out.run.workload = std::move(*workload);
  auto built = BuildPolicy(policy, params);
  EXPECT_TRUE(built.ok()) << StatusMessage(built.status());
  sim::Engine engine(out.run.workload, *built->policy, options);
  Recorder recorder(out.run.attempts);
  ScheduleChecker checker(out.run.workload, weft::ResourceMask{0});
  engine.AddObserver(&recorder);
  engine.AddObserver(&checker);
  out.run.status = engine.Run();
  if (out.run.status.ok() && !checker.ok()) out.run.status = absl::InternalError(checker.violations().front());
  out.stats = engine.stats();
  return out;
}

// Four single-core nodes; "blocker" pins one 5 s task each on n2 and n3
// (its only candidate), then job "j" (2 tasks of 1 s) arrives at 1 s. With
// d = 2 the 4 reservations of j cover every node: n0 and n1 are idle, ask at
// once and get the two tasks; n2 and n3 ask at 5 s and get no-ops. "tail"
// (one 1 s task pinned on n0 at 6 s) keeps the run going past them.
constexpr char kFourNodes[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n1", "capacity": {"cpu": 1, "mem": 1}}, {"name": "n2", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n3", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "blocker", "stages": [{"name": "b", "tasks": 2, "duration": 5, "demand": {"cpu": 1},
            "locality": [["n2"], ["n3"]]}]},
           {"name": "j", "arrival": 1, "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]},
           {"name": "tail", "arrival": 6, "stages": [{"name": "t", "tasks": 1, "duration": 1, "demand": {"cpu": 1},
            "locality": [["n0"]]}]}]})";

TEST(SparrowPolicyTest, LateBindingHandsTasksToTheFirstRequestersAndNoOpsTheRest) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    sim::SimOptions o;
    o.seed = seed;
    const SparrowRun r = RunSparrow(kFourNodes, "sparrow", {"schedulers=1"}, o);
    ASSERT_TRUE(r.run.status.ok()) << r.run.status;
    std::vector<uint32_t> machines = {r.run.Task("j", 0).machine.value(), r.run.Task("j", 1).machine.value()};
    std::sort(machines.begin(), machines.end());
    EXPECT_EQ(machines, (std::vector<uint32_t>{0, 1})) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j", 0).start_us, Sec(1));
    EXPECT_EQ(r.run.Task("j", 1).start_us, Sec(1));
    // blocker: 2 reservations per task on its one candidate, 4 requests,
    // 2 tasks + 2 no-ops; j: 4 reservations, 4 requests, 2 tasks + 2 no-ops;
    // tail: 2 reservations, 1 request, 1 task (the run ends with it).
    EXPECT_EQ(r.stats.messages, 12u + 12u + 4u);
  }
}

// A source that frees an ended job's stages when the engine releases it, as
// `weft sim --trace`'s does (trace/trace_stream.h).
class FreeingSource final : public JobSource {
 public:
  explicit FreeingSource(Workload w) : w_(std::move(w)), inner_(w_) {}
  const Workload& workload() const override { return w_; }
  bool HasPhases() const override { return inner_.HasPhases(); }
  uint64_t LiveJobs() const override { return w_.jobs.size() - released_; }
  void Release(std::span<const JobId> jobs) override {
    for (const JobId id : jobs) released_ += ReleaseStages(w_.jobs[id.value()]) ? 1 : 0;
  }

 protected:
  std::optional<JobId> Pull() override { return inner_.Next(); }

 private:
  Workload w_;
  WorkloadSource inner_;
  uint64_t released_ = 0;
};

// "hog" holds n1 for 1000 s; "x" (one 1 s task) arrives at 1 s and, with
// d = 2 on two nodes, reserves both: it runs on n0 and its reservation on n1
// waits there behind hog. 400 one-task jobs then arrive a second apart and
// end on n0, so x is released (a minute after its end, in a batch of 256, at
// an arrival) long before n1 frees at 1000 s and serves the stale
// reservation, while "tail" keeps the run going. A run whose source frees
// released jobs' stages must not read them there (it crashed, reading the
// demand of a released stage) and must schedule exactly as a run whose
// source keeps them.
TEST(SparrowPolicyTest, AReservationOutlivingItsReleasedJobIsAnsweredTheSameWhateverTheSource) {
  std::string json = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n1", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "hog", "stages": [{"name": "h", "tasks": 1, "duration": 1000, "demand": {"cpu": 1},
            "locality": [["n1"]]}]},
           {"name": "x", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]})";
  for (int i = 0; i < 400; ++i) {
    json += R"(, {"name": "s)" + std::to_string(i) + R"(", "arrival": )" + std::to_string(3 + i) +
            R"(, "stages": [{"name": "a", "tasks": 1, "duration": 0.5, "demand": {"cpu": 1}}]})";
  }
  // "tail" keeps the run going while n1 serves its queue.
  json += R"(, {"name": "tail", "arrival": 999, "stages": [{"name": "t", "tasks": 1, "duration": 10,
            "demand": {"cpu": 1}, "locality": [["n0"]]}]}]})";
  // Kept: the whole workload, with the schedule checker.
  const SparrowRun kept = RunSparrow(json, "sparrow", {"schedulers=1"});
  ASSERT_TRUE(kept.run.status.ok()) << kept.run.status;
  EXPECT_EQ(kept.run.Task("x").machine, MachineId(0));
  // Freed: released jobs lose their stages.
  auto workload = ParseWorkload(json);
  ASSERT_TRUE(workload.ok());
  FreeingSource source(std::move(*workload));
  auto built = BuildPolicy("sparrow", {"schedulers=1"});
  ASSERT_TRUE(built.ok());
  sim::Engine engine(source, *built->policy, sim::SimOptions{});
  std::vector<AttemptRecord> attempts;
  Recorder recorder(attempts);
  engine.AddObserver(&recorder);
  ASSERT_TRUE(engine.Run().ok());
  EXPECT_LE(source.LiveJobs(), 403u - 256u);  // x was released before n1 freed
  ASSERT_EQ(attempts.size(), kept.run.attempts.size());
  for (size_t i = 0; i < attempts.size(); ++i) {
    EXPECT_EQ(attempts[i].task, kept.run.attempts[i].task) << i;
    EXPECT_EQ(attempts[i].machine, kept.run.attempts[i].machine) << i;
    EXPECT_EQ(attempts[i].start_us, kept.run.attempts[i].start_us) << i;
    EXPECT_EQ(attempts[i].end_us, kept.run.attempts[i].end_us) << i;
  }
  EXPECT_EQ(engine.stats().messages, kept.stats.messages);
}

TEST(SparrowPolicyTest, LatencyCostsFourOneWayTrips) {
  // Ready notification, reservation, request, task: 4 x 10 ms after arrival.
  sim::SimOptions o;
  o.latency_us = Sec(0.01);
  const SparrowRun r = RunSparrow(kFourNodes, "sparrow", {"schedulers=1"}, o);
  ASSERT_TRUE(r.run.status.ok()) << r.run.status;
  EXPECT_EQ(r.run.Task("j", 0).start_us, Sec(1.04));
  EXPECT_EQ(r.run.Task("j", 1).start_us, Sec(1.04));
}

TEST(SparrowPolicyTest, ProactiveCancellationRemovesLeftoverReservations) {
  const SparrowRun r = RunSparrow(kFourNodes, "sparrow", {"schedulers=1", "cancellation=true"});
  ASSERT_TRUE(r.run.status.ok()) << r.run.status;
  // j's reservations on n2 and n3 are cancelled (2 cancels) instead of
  // asking and getting a no-op (2 requests + 2 no-ops); blocker's surplus
  // reservation on each node is cancelled too once its task is launched, and
  // tail's second one on n0.
  EXPECT_EQ(r.stats.messages, 4u + 2u + 2u + 2u + (4u + 2u + 2u + 2u) + (2u + 1u + 1u + 1u));
  EXPECT_EQ(r.run.Task("j", 0).start_us, Sec(1));
}

// n0 holds 2 pinned tasks (1 running, 1 queued), n3 holds 3, n1 and n2 none
// when j arrives: batch sampling probes all four and queues j's two tasks on
// the two least loaded.
constexpr char kLoaded[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n1", "capacity": {"cpu": 1, "mem": 1}}, {"name": "n2", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n3", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "p0", "stages": [{"name": "b", "tasks": 2, "duration": 10, "demand": {"cpu": 1},
            "locality": [["n0"], ["n0"]]}]},
           {"name": "p3", "stages": [{"name": "b", "tasks": 3, "duration": 10, "demand": {"cpu": 1},
            "locality": [["n3"], ["n3"], ["n3"]]}]},
           {"name": "j", "arrival": 1, "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(SparrowPolicyTest, BatchSamplingQueuesOnTheLeastLoaded) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    sim::SimOptions o;
    o.seed = seed;
    const SparrowRun r = RunSparrow(kLoaded, "sparrow-batch", {"schedulers=1"}, o);
    ASSERT_TRUE(r.run.status.ok()) << r.run.status;
    std::vector<uint32_t> machines = {r.run.Task("j", 0).machine.value(), r.run.Task("j", 1).machine.value()};
    std::sort(machines.begin(), machines.end());
    EXPECT_EQ(machines, (std::vector<uint32_t>{1, 2})) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j", 0).start_us, Sec(1));
    // The pinned tasks ran one after another on their node.
    EXPECT_EQ(r.run.Task("p3", 2).end_us - r.run.Task("p3", 2).start_us, Sec(10));
  }
}

// Two nodes: n0 holds 2 pinned tasks; per-task sampling with d = 2 probes
// both for each of j's tasks and queues each on the shortest queue.
constexpr char kTwoNodes[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n1", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "p0", "stages": [{"name": "b", "tasks": 2, "duration": 10, "demand": {"cpu": 1},
            "locality": [["n0"], ["n0"]]}]},
           {"name": "j", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(SparrowPolicyTest, PerTaskSamplingQueuesOnTheShorterQueue) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    sim::SimOptions o;
    o.seed = seed;
    const SparrowRun r = RunSparrow(kTwoNodes, "sparrow-per-task", {"schedulers=1"}, o);
    ASSERT_TRUE(r.run.status.ok()) << r.run.status;
    EXPECT_EQ(r.run.Task("j").machine, MachineId(1)) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j").start_us, Sec(1));
    EXPECT_EQ(r.run.Task("p0", 1).start_us, Sec(10));
  }
}

TEST(SparrowPolicyTest, RandomPlacementIgnoresLoad) {
  // One draw among two nodes per seed: some seed puts j behind p0's tasks.
  bool behind = false, idle = false;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    sim::SimOptions o;
    o.seed = seed;
    const SparrowRun r = RunSparrow(kTwoNodes, "sparrow-random", {"schedulers=1"}, o);
    ASSERT_TRUE(r.run.status.ok()) << r.run.status;
    if (r.run.Task("j").machine == MachineId(0)) {
      behind = true;
      EXPECT_EQ(r.run.Task("j").start_us, Sec(20));  // after both pinned tasks
    } else {
      idle = true;
    }
  }
  EXPECT_TRUE(behind && idle);
}

// One node, busy with "b" until 1 s; low-priority job L arrives at 0.5 s and
// high-priority H at 0.6 s. fifo serves L first; priority serves H first.
constexpr char kPriority[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "b", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "L", "arrival": 0.5, "priority": 0, "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "H", "arrival": 0.6, "priority": 5, "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(SparrowPolicyTest, PriorityQueuesServeTheHighestPriorityFirst) {
  for (const char* policy : {"sparrow", "sparrow-batch", "sparrow-per-task", "sparrow-random"}) {
    const SparrowRun fifo = RunSparrow(kPriority, policy, {"schedulers=1"});
    const SparrowRun prio = RunSparrow(kPriority, policy, {"schedulers=1", "queue=priority"});
    ASSERT_TRUE(fifo.run.status.ok()) << fifo.run.status;
    ASSERT_TRUE(prio.run.status.ok()) << prio.run.status;
    EXPECT_EQ(fifo.run.Task("L").start_us, Sec(1)) << policy;
    EXPECT_EQ(fifo.run.Task("H").start_us, Sec(2)) << policy;
    EXPECT_EQ(prio.run.Task("H").start_us, Sec(1)) << policy;
    EXPECT_EQ(prio.run.Task("L").start_us, Sec(2)) << policy;
  }
}

// One node; users a (weight 1) and b (weight 2) each submit 6 one-second
// tasks at 0 (a first). Weighted fair queuing serves a, b, b, a, b, b, ...:
// in the first 6 s b runs 4 tasks and a 2. fifo runs all of a's first.
constexpr char kFair[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "A", "user": "a", "weight": 1, "stages": [{"name": "s", "tasks": 6, "duration": 1, "demand": {"cpu": 1}}]},
    {"name": "B", "user": "b", "weight": 2, "stages": [{"name": "s", "tasks": 6, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(SparrowPolicyTest, FairQueuesShareANodeByWeight) {
  // probe_ratio 1: exactly one reservation per task, so no no-op is charged.
  const SparrowRun fair = RunSparrow(kFair, "sparrow", {"schedulers=1", "probe_ratio=1", "queue=fair"});
  const SparrowRun fifo = RunSparrow(kFair, "sparrow", {"schedulers=1", "probe_ratio=1"});
  ASSERT_TRUE(fair.run.status.ok()) << fair.run.status;
  ASSERT_TRUE(fifo.run.status.ok()) << fifo.run.status;
  int a = 0, b = 0;
  for (double t = 0.5; t < 6; t += 1) {
    a += fair.run.Running("a", Sec(t));
    b += fair.run.Running("b", Sec(t));
  }
  EXPECT_EQ(a, 2);
  EXPECT_EQ(b, 4);
  EXPECT_EQ(fifo.run.Running("a", Sec(5.5)), 1);
  EXPECT_EQ(fifo.run.Running("b", Sec(5.5)), 0);
}

// §4.1: task 0 may run on n0, n1 or n2, task 1 only on n2; n0 and n1 are
// busy until 10 s. With d = 1, task 0 probes one of its three candidates
// at random; whichever it is, the reservation on n2 (task 1's) serves the
// lowest unlaunched task that may run there, task 0, at once, and task 1 is
// probed again and follows on n2 at 1 s. Without sharing probe information,
// task 0 would wait until 10 s in two seeds out of three.
constexpr char kConstrained[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 1, "mem": 1}},
    {"name": "n1", "capacity": {"cpu": 1, "mem": 1}}, {"name": "n2", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "busy", "stages": [{"name": "b", "tasks": 2, "duration": 10, "demand": {"cpu": 1},
            "locality": [["n0"], ["n1"]]}]},
    {"name": "j", "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1},
            "locality": [["n0", "n1", "n2"], ["n2"]]}]}]})";

TEST(SparrowPolicyTest, ConstrainedTasksShareProbeInformation) {
  for (uint64_t seed = 1; seed <= 9; ++seed) {
    sim::SimOptions o;
    o.seed = seed;
    const SparrowRun r = RunSparrow(kConstrained, "sparrow", {"schedulers=1", "probe_ratio=1"}, o);
    ASSERT_TRUE(r.run.status.ok()) << r.run.status;
    EXPECT_EQ(r.run.Task("j", 0).machine, MachineId(2)) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j", 0).start_us, 0) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j", 1).machine, MachineId(2)) << "seed " << seed;
    EXPECT_EQ(r.run.Task("j", 1).start_us, Sec(1)) << "seed " << seed;
  }
}

// A job-level constraint: 2-core tasks are only sampled onto the 4-core
// nodes, whatever the seed and variant.
constexpr char kGroups[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "small", "count": 2, "capacity": {"cpu": 1, "mem": 4}},
    {"name": "big", "count": 2, "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 6, "duration": 1, "demand": {"cpu": 2}},
    {"name": "b", "tasks": 4, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(SparrowPolicyTest, TasksAreSampledOnlyOntoMachinesThatCanHoldThem) {
  for (const char* policy : {"sparrow", "sparrow-batch", "sparrow-per-task", "sparrow-random"}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      sim::SimOptions o;
      o.seed = seed;
      std::vector<std::string> params = {"schedulers=2"};
      if (std::string(policy) != "sparrow-random") params.push_back("probe_ratio=1.5");
      const SparrowRun r = RunSparrow(kGroups, policy, params, o);
      ASSERT_TRUE(r.run.status.ok()) << policy << ": " << r.run.status;
      for (uint32_t i = 0; i < 6; ++i) EXPECT_GE(r.run.Task("j", i).machine.value(), 2u) << policy;
    }
  }
}

TEST(SparrowPolicyTest, SlotsLimitConcurrentTasksBelowCores) {
  // A 4-core node with slots=1 runs one 1-core task at a time.
  constexpr char kOneBig[] = R"({"weft": 1,
    "cluster": {"machines": [{"name": "n0", "capacity": {"cpu": 4, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 3, "duration": 1, "demand": {"cpu": 1}}]}]})";
  const SparrowRun one = RunSparrow(kOneBig, "sparrow", {"schedulers=1", "slots=1"});
  const SparrowRun cores = RunSparrow(kOneBig, "sparrow", {"schedulers=1"});
  ASSERT_TRUE(one.run.status.ok()) << one.run.status;
  ASSERT_TRUE(cores.run.status.ok()) << cores.run.status;
  EXPECT_EQ(one.run.Task("j", 2).start_us, Sec(2));
  EXPECT_EQ(cores.run.Task("j", 2).start_us, 0);
}

}  // namespace
}  // namespace weft::policy::testing
