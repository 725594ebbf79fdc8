// LiveEngine: the engine driven by an outside clock and executor, as the
// runtime's scheduler daemon drives it. A recording executor stands in for
// the node daemons.
#include "sim/live_engine.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "policy/registry.h"
#include "trace/workload_reader.h"

namespace weft::sim {
namespace {

class RecordingExecutor : public AttemptExecutor {
 public:
  void StartAttempt(const AttemptLaunch& launch) override { started.push_back(launch); }
  void KillAttempt(uint64_t id, MachineId) override { killed.push_back(id); }
  void StartPhase(uint64_t id, MachineId, const TaskRef&, uint32_t phase) override { phases.emplace_back(id, phase); }
  void DeliverToNode(MachineId machine, const NodeMail& mail) override { node_mail.emplace_back(machine, mail); }
  std::vector<AttemptLaunch> started;
  std::vector<uint64_t> killed;
  std::vector<std::pair<uint64_t, uint32_t>> phases;  // (attempt, phase) started
  std::vector<std::pair<MachineId, NodeMail>> node_mail;
};

class EndCounter : public RunObserver {
 public:
  void OnAttemptEnd(const AttemptRecord& r) override { ends.push_back(r); }
  void OnJobEnd(const JobRecord& r) override { jobs.push_back(r); }
  std::vector<AttemptRecord> ends;
  std::vector<JobRecord> jobs;
};

// Two one-core machines; a job of two 2-task stages joined by a barrier.
constexpr char kWorkload[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1, "mem": 1}},
    {"name": "b", "tasks": 2, "duration": 1, "demand": {"cpu": 1, "mem": 1}, "after": ["a"]}]}]})";

struct Fixture {
  explicit Fixture(const std::string& policy_name = "fifo", bool remote_agents = false,
                   const char* workload = kWorkload) {
    auto parsed = ParseWorkload(workload);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    spec = std::move(*parsed);
    live.cluster = spec.cluster;
    auto built = policy::BuildPolicy(policy_name, {});
    EXPECT_TRUE(built.ok());
    policy = std::move(built->policy);
    engine = std::make_unique<LiveEngine>(live, *policy, SimOptions{}, executor, remote_agents);
    engine->AddObserver(&observer);
  }
  // Add adds the job; the tasks in `done` ended ok before (recovery).
  JobId Add(TimeUs now, std::span<const TaskRef> done = {}) {
    std::vector<AttemptRecord> history;
    for (const TaskRef& t : done) history.push_back(AttemptRecord{.task = t, .outcome = Outcome::kOk});
    live.jobs.push_back(spec.jobs[0]);
    const JobId id(static_cast<uint32_t>(live.jobs.size() - 1));
    engine->JobAdded(id, now, now, history);
    return id;
  }
  Workload spec;
  Workload live;
  std::unique_ptr<policy::Policy> policy;
  RecordingExecutor executor;
  EndCounter observer;
  std::unique_ptr<LiveEngine> engine;
};

TEST(LiveEngineTest, RunsStagesInOrderAsTheExecutorReportsEnds) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  const JobId job = f.Add(10);
  ASSERT_EQ(f.executor.started.size(), 2u);  // stage a on both machines
  EXPECT_EQ(f.executor.started[0].task.stage, 0u);
  EXPECT_NE(f.executor.started[0].machine, f.executor.started[1].machine);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kOk, policy::TaskUsage(), 20));
  EXPECT_EQ(f.executor.started.size(), 2u);  // b waits for all of a
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[1].id, Outcome::kOk, policy::TaskUsage(), 30));
  ASSERT_EQ(f.executor.started.size(), 4u);
  EXPECT_EQ(f.executor.started[2].task.stage, 1u);
  EXPECT_FALSE(f.engine->AttemptEnded(f.executor.started[1].id, Outcome::kOk, policy::TaskUsage(), 31));  // reported twice
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[2].id, Outcome::kOk, policy::TaskUsage(), 40));
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[3].id, Outcome::kOk, policy::TaskUsage(), 50));
  ASSERT_EQ(f.observer.jobs.size(), 1u);
  EXPECT_TRUE(f.observer.jobs[0].succeeded);
  EXPECT_EQ(f.observer.jobs[0].end_us, 50);
  EXPECT_FALSE(f.engine->job_active(job));
  EXPECT_TRUE(f.executor.killed.empty());
}

// A node's report of a phase end for a task without phases (untrusted input:
// the node stream) is refused, not read past the stage's phases.
TEST(LiveEngineTest, APhaseEndForATaskWithoutPhasesIsRefused) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  f.Add(10);
  ASSERT_FALSE(f.executor.started.empty());
  EXPECT_FALSE(f.engine->PhaseEnded(f.executor.started[0].id, 0, policy::TaskUsage(), 15));
  EXPECT_TRUE(f.observer.ends.empty());
}

// Retention (issue 20): a released job's run state goes and it is freed in
// the workload (its JobId reads as Job{}), an active job is kept, and the
// engine runs on.
TEST(LiveEngineTest, ReleasedJobsHoldNoPerJobState) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  const JobId done = f.Add(10);
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_LT(i, f.executor.started.size());
    EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[i].id, Outcome::kOk, policy::TaskUsage(), 20 + i));
  }
  ASSERT_FALSE(f.engine->job_active(done));
  const JobId running = f.Add(30);
  EXPECT_EQ(f.engine->held_jobs(), 2u);
  EXPECT_EQ(f.engine->progress(done)->tasks.size(), 4u);  // ended, still held
  const JobId both[] = {done, running};
  f.engine->ReleaseJobs(both, 40);
  EXPECT_EQ(f.engine->held_jobs(), 1u);  // the active one is kept
  const policy::JobProgress* stub = f.engine->progress(done);
  ASSERT_NE(stub, nullptr);
  EXPECT_TRUE(stub->finished);
  EXPECT_FALSE(stub->failed);
  EXPECT_TRUE(stub->tasks.empty());
  EXPECT_TRUE(f.live.jobs.freed(done.value()));  // the workload's copy: freed, read as Job{}
  EXPECT_TRUE(f.live.jobs[done.value()].stages.empty());
  EXPECT_EQ(f.live.jobs[done.value()].num_tasks, 0u);
  EXPECT_FALSE(f.live.jobs.freed(running.value()));
  EXPECT_EQ(f.live.jobs[running.value()].stages.size(), 2u);
  // The active job runs to its end.
  ASSERT_EQ(f.executor.started.size(), 6u);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[4].id, Outcome::kOk, policy::TaskUsage(), 50));
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[5].id, Outcome::kOk, policy::TaskUsage(), 50));
  ASSERT_EQ(f.executor.started.size(), 8u);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[6].id, Outcome::kOk, policy::TaskUsage(), 60));
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[7].id, Outcome::kOk, policy::TaskUsage(), 60));
  EXPECT_FALSE(f.engine->job_active(running));
  f.engine->ReleaseJobs(both, 70);  // one released already: skipped
  EXPECT_EQ(f.engine->held_jobs(), 0u);
  EXPECT_TRUE(f.live.jobs.freed(running.value()));
  EXPECT_TRUE(f.live.jobs[running.value()].stages.empty());
}

// What a released job still costs (issue 20): the heap the engine, the
// policy and the workload hold per job after many one-task jobs ran and
// were released, against while they are held.
TEST(LiveEngineTest, ReleasedJobsCostLittleMemory) {
  constexpr char kOneTask[] = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 4}}]},
    "jobs": [{"name": "a-job-name-longer-than-sso", "stages": [
      {"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]}]})";
  Fixture f("fifo", false, kOneTask);
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  constexpr uint32_t kJobs = 20000;
  f.executor.started.reserve(kJobs);
  f.observer.ends.reserve(kJobs);
  f.observer.jobs.reserve(kJobs);
  const size_t before = mallinfo2().uordblks;  // the workload's jobs (pages of them) count below
  f.live.jobs.reserve(kJobs);
  std::vector<JobId> ids;
  ids.reserve(kJobs);
  for (uint32_t i = 0; i < kJobs; ++i) {
    ids.push_back(f.Add(10 + i));
    ASSERT_EQ(f.executor.started.size(), i + 1);
    ASSERT_TRUE(f.engine->AttemptEnded(f.executor.started[i].id, Outcome::kOk, policy::TaskUsage(), 10 + i));
  }
  const size_t held = mallinfo2().uordblks;
  f.engine->ReleaseJobs(ids, 10 + kJobs);
  const size_t released = mallinfo2().uordblks;
  const double held_per_job = (static_cast<double>(held) - static_cast<double>(before)) / kJobs;
  const double released_per_job = (static_cast<double>(released) - static_cast<double>(before)) / kJobs;
  // Both include the workload's Job records (its pages), until freed.
  std::printf("heap per one-task job: %.0f bytes held (ended), %.0f bytes after release; sizeof(Job) %zu\n",
              held_per_job, released_per_job, sizeof(Job));
  EXPECT_EQ(f.engine->held_jobs(), 0u);
  EXPECT_LT(released_per_job, held_per_job / 2);
  // The Job record goes too (it stayed, a stub, before the workload was paged).
  EXPECT_LT(released_per_job, static_cast<double>(sizeof(Job)));
  EXPECT_LE(f.live.jobs.held_pages(), 1u);
  // And the engine's per-job state (run and released flag): pages of 256
  // jobs, all freed but the last (the page tables stay, 16 bytes a page).
  EXPECT_LE(f.engine->held_job_pages(), 2u);
}

// A policy with a job manager per job (cobra): a finished job's manager goes,
// and so do the engine's pages of them (issue 20).
TEST(LiveEngineTest, FinishedJobsLeaveNoJobManagerSlots) {
  constexpr char kOneTask[] = R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 1, "mem": 4}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 1, "mem": 1}}]}]})";
  Fixture f("cobra", false, kOneTask);
  ASSERT_TRUE(f.policy->has_job_managers());
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  constexpr uint32_t kJobs = 1024;  // four pages
  std::vector<JobId> ids;
  TimeUs now = 10;
  size_t ended = 0;  // of f.executor.started
  for (uint32_t i = 0; i < kJobs; ++i) {
    ids.push_back(f.Add(now));
    // Run the job to its end: its manager asks for a container, gets it, launches.
    for (int step = 0; step < 200 && f.engine->job_active(ids.back()); ++step) {
      f.engine->Advance(now);
      while (ended < f.executor.started.size()) {
        const uint64_t id = f.executor.started[ended++].id;
        EXPECT_TRUE(f.engine->AttemptEnded(id, Outcome::kOk, policy::TaskUsage(), now));
      }
      const TimeUs next = f.engine->NextEventTime();  // the manager's timers (container requests)
      now = std::max(now + 1, next);
    }
    ASSERT_FALSE(f.engine->job_active(ids.back())) << "job " << i << " did not end";
  }
  f.engine->ReleaseJobs(ids, now);
  EXPECT_EQ(f.engine->held_jobs(), 0u);
  // Of the four pages of each store (run state, released flags, managers,
  // their contexts), at most the last of each may stay.
  EXPECT_LE(f.engine->held_job_pages(), 4u);
}

// The executor knows how long a process really ran: the record starts then,
// not when the launch was decided (but never before it, nor after the end).
TEST(LiveEngineTest, AnAttemptsRecordStartsWhenItReallyRanFrom) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  f.Add(10);
  ASSERT_EQ(f.executor.started.size(), 2u);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kOk, policy::TaskUsage(), 100, /*ran_us=*/30));
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[1].id, Outcome::kOk, policy::TaskUsage(), 100, /*ran_us=*/500));
  ASSERT_EQ(f.observer.ends.size(), 2u);
  EXPECT_EQ(f.observer.ends[0].start_us, 70);
  EXPECT_EQ(f.observer.ends[0].end_us, 100);
  EXPECT_EQ(f.observer.ends[1].start_us, 10);  // longer than since the launch: the launch it is
  ASSERT_EQ(f.executor.started.size(), 4u);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[2].id, Outcome::kOk, policy::TaskUsage(), 150));
  EXPECT_EQ(f.observer.ends[2].start_us, 100);  // not known: the launch
}

// A task with phases: the launch says how many; without an agent that
// controls phases the engine starts each as the previous one is reported
// done; the attempt ends ok after its last (no kill), its usage the average
// over its life of what its phases used.
constexpr char kPhased[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 4, "disk": 100, "net": 100}}]},
  "jobs": [{"name": "j", "stages": [{"name": "p", "tasks": 1, "demand": {"cpu": 1, "mem": 1, "disk": 50},
    "phases": [{"resource": "cpu", "work": 1}, {"resource": "disk", "work": 10}]}]}]})";

TEST(LiveEngineTest, PhasesRunOneAtATimeAsTheExecutorReportsThem) {
  Fixture f("fifo", false, kPhased);
  ASSERT_TRUE(f.engine->Start(0, {true}).ok());
  f.Add(10);
  ASSERT_EQ(f.executor.started.size(), 1u);
  const uint64_t id = f.executor.started[0].id;
  EXPECT_EQ(f.executor.started[0].phases, 2u);
  using Started = std::vector<std::pair<uint64_t, uint32_t>>;
  EXPECT_EQ(f.executor.phases, (Started{{id, 0}}));
  EXPECT_FALSE(f.engine->PhaseEnded(id, 1, policy::TaskUsage(), 15));  // not the running phase
  policy::TaskUsage cpu;
  cpu.average.set_micro(kCpu, 1'000'000);
  cpu.peak = cpu.average;
  EXPECT_TRUE(f.engine->PhaseEnded(id, 0, cpu, 20));
  EXPECT_EQ(f.executor.phases, (Started{{id, 0}, {id, 1}}));
  EXPECT_TRUE(f.observer.ends.empty());
  policy::TaskUsage disk;
  disk.average.set_micro(kDisk, 50'000'000);
  disk.peak = disk.average;
  EXPECT_TRUE(f.engine->PhaseEnded(id, 1, disk, 30));
  ASSERT_EQ(f.observer.ends.size(), 1u);
  EXPECT_EQ(f.observer.ends[0].outcome, Outcome::kOk);
  EXPECT_EQ(f.observer.ends[0].end_us, 30);
  // cpu 1 core for 10 us and disk 50 MB/s for 10 us, over a 20 us life.
  EXPECT_EQ(f.observer.ends[0].usage.micro(kCpu), 500'000);
  EXPECT_EQ(f.observer.ends[0].usage.micro(kDisk), 25'000'000);
  EXPECT_FALSE(f.engine->PhaseEnded(id, 1, disk, 31));  // reported twice
  EXPECT_TRUE(f.executor.killed.empty());
}

// A failed phase is the attempt's failure, reported as its end.
TEST(LiveEngineTest, AFailedPhaseFailsTheAttempt) {
  Fixture f("fifo", false, kPhased);
  ASSERT_TRUE(f.engine->Start(0, {true}).ok());
  f.Add(10);
  const uint64_t id = f.executor.started[0].id;
  EXPECT_TRUE(f.engine->AttemptEnded(id, Outcome::kFailed, policy::TaskUsage(), 12));
  ASSERT_EQ(f.observer.ends.size(), 1u);
  EXPECT_EQ(f.observer.ends[0].outcome, Outcome::kFailed);
  EXPECT_TRUE(f.executor.killed.empty());
  ASSERT_EQ(f.executor.started.size(), 2u);  // retried
  EXPECT_EQ(f.executor.phases.back(), (std::pair<uint64_t, uint32_t>{f.executor.started[1].id, 0}));
}

TEST(LiveEngineTest, FailedAttemptIsRetried) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, false}).ok());
  f.Add(0);
  ASSERT_EQ(f.executor.started.size(), 1u);  // one machine up
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kFailed, policy::TaskUsage(), 5));
  ASSERT_EQ(f.executor.started.size(), 2u);
  EXPECT_EQ(f.executor.started[1].task, f.executor.started[0].task);
  EXPECT_EQ(f.executor.started[1].attempt, 1u);
}

TEST(LiveEngineTest, RecoveredDoneTasksAreNotRunAgain) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  const TaskRef done[] = {TaskRef{JobId(0), 0, 0}, TaskRef{JobId(0), 0, 1}, TaskRef{JobId(0), 1, 1}};
  f.Add(0, done);
  ASSERT_EQ(f.executor.started.size(), 1u);  // only b/0 is left
  EXPECT_EQ(f.executor.started[0].task, (TaskRef{JobId(0), 1, 0}));
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kOk, policy::TaskUsage(), 5));
  ASSERT_EQ(f.observer.jobs.size(), 1u);
  EXPECT_TRUE(f.observer.jobs[0].succeeded);
  EXPECT_EQ(f.observer.ends.size(), 1u);
}

TEST(LiveEngineTest, AJobRecoveredWhollyDoneFinishesAtOnce) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  const TaskRef done[] = {TaskRef{JobId(0), 0, 0}, TaskRef{JobId(0), 0, 1}, TaskRef{JobId(0), 1, 0},
                          TaskRef{JobId(0), 1, 1}};
  f.Add(0, done);
  EXPECT_TRUE(f.executor.started.empty());
  ASSERT_EQ(f.observer.jobs.size(), 1u);
  EXPECT_TRUE(f.observer.jobs[0].succeeded);
}

TEST(LiveEngineTest, RecoveredAttemptsKeepTheirNumbersAndFailures) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, false}).ok());
  f.live.jobs.push_back(f.spec.jobs[0]);
  const TaskRef a0{JobId(0), 0, 0};
  const AttemptRecord history[] = {{.task = a0, .attempt = 0, .outcome = Outcome::kFailed},
                                   {.task = a0, .attempt = 1, .outcome = Outcome::kFailed},
                                   {.task = a0, .attempt = 2, .outcome = Outcome::kKilled}};
  f.engine->JobAdded(JobId(0), 0, 0, history);
  ASSERT_EQ(f.executor.started.size(), 1u);
  EXPECT_EQ(f.executor.started[0].task, a0);
  EXPECT_EQ(f.executor.started[0].attempt, 3u);  // numbering goes on
  // Two failures before the crash, the default max_attempts is 4: two more fail the job.
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kFailed, policy::TaskUsage(), 1));
  ASSERT_EQ(f.executor.started.size(), 2u);
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[1].id, Outcome::kFailed, policy::TaskUsage(), 2));
  ASSERT_EQ(f.observer.jobs.size(), 1u);
  EXPECT_FALSE(f.observer.jobs[0].succeeded);
}

TEST(LiveEngineTest, CancelKillsRunningAttemptsThroughTheExecutor) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  const JobId job = f.Add(0);
  ASSERT_EQ(f.executor.started.size(), 2u);
  EXPECT_TRUE(f.engine->CancelJob(job, 7));
  std::vector<uint64_t> killed = f.executor.killed;
  std::sort(killed.begin(), killed.end());
  std::vector<uint64_t> started{f.executor.started[0].id, f.executor.started[1].id};
  std::sort(started.begin(), started.end());
  EXPECT_EQ(killed, started);
  EXPECT_FALSE(f.engine->AttemptEnded(started[0], Outcome::kKilled, policy::TaskUsage(), 8));  // already ended
  EXPECT_FALSE(f.engine->CancelJob(job, 9));
  ASSERT_EQ(f.observer.jobs.size(), 1u);
  EXPECT_FALSE(f.observer.jobs[0].succeeded);
}

TEST(LiveEngineTest, LostMachineTasksRunElsewhere) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  f.Add(0);
  ASSERT_EQ(f.executor.started.size(), 2u);
  const AttemptLaunch lost = f.executor.started[0];
  const AttemptLaunch kept = f.executor.started[1];
  f.engine->MachineDown(lost.machine, 5);
  EXPECT_EQ(f.executor.killed, std::vector<uint64_t>{lost.id});
  EXPECT_EQ(f.executor.started.size(), 2u);  // the other machine is busy
  EXPECT_TRUE(f.engine->AttemptEnded(kept.id, Outcome::kOk, policy::TaskUsage(), 6));
  ASSERT_EQ(f.executor.started.size(), 3u);
  EXPECT_EQ(f.executor.started[2].task, lost.task);
  EXPECT_EQ(f.executor.started[2].machine, kept.machine);
  f.engine->MachineUp(lost.machine, 7);  // comes back and is used again
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[2].id, Outcome::kOk, policy::TaskUsage(), 8));
  EXPECT_EQ(f.executor.started.size(), 5u);
}

TEST(LiveEngineTest, RemoteNodeAgentsGetTheirMailAndActThroughTheEngine) {
  Fixture f("sparrow-random", /*remote_agents=*/true);
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  ASSERT_EQ(f.executor.node_mail.size(), 2u);  // one start per machine, no local agents
  EXPECT_EQ(f.executor.node_mail[0].second.kind, NodeMail::Kind::kStart);
  f.executor.node_mail.clear();
  f.Add(0);
  ASSERT_EQ(f.executor.node_mail.size(), 2u);  // stage a's two tasks, each enqueued at a node
  for (const auto& [machine, mail] : f.executor.node_mail) {
    EXPECT_EQ(mail.kind, NodeMail::Kind::kMessage);
    EXPECT_EQ(mail.from, policy::Address::Scheduler(0));
    EXPECT_EQ(mail.message.task.stage, 0u);
  }
  EXPECT_TRUE(f.executor.started.empty());  // only the agents launch
  const auto [machine, mail] = f.executor.node_mail[0];
  ASSERT_TRUE(f.engine->NodeLaunch(machine, mail.message.task, 1).ok());
  ASSERT_EQ(f.executor.started.size(), 1u);
  EXPECT_EQ(f.executor.started[0].machine, machine);
  EXPECT_FALSE(f.engine->NodeLaunch(machine, mail.message.task, 2).ok());  // already launched: refused
  // The agent kills it: the executor is told, and the task can be launched again.
  ASSERT_TRUE(f.engine->NodeKill(machine, mail.message.task, 2).ok());
  EXPECT_EQ(f.executor.killed, std::vector<uint64_t>{f.executor.started[0].id});
  EXPECT_FALSE(f.engine->NodeKill(machine, mail.message.task, 2).ok());  // not running any more
  ASSERT_TRUE(f.engine->NodeLaunch(machine, mail.message.task, 2).ok());
  ASSERT_EQ(f.executor.started.size(), 2u);
  f.executor.started.erase(f.executor.started.begin());
  f.executor.node_mail.clear();
  EXPECT_TRUE(f.engine->AttemptEnded(f.executor.started[0].id, Outcome::kOk, policy::TaskUsage(), 3));
  ASSERT_FALSE(f.executor.node_mail.empty());  // its agent hears the end
  EXPECT_EQ(f.executor.node_mail[0].second.kind, NodeMail::Kind::kTaskEnded);
  EXPECT_EQ(f.executor.node_mail[0].first, machine);
  // After its machine goes down, an agent's actions are ignored.
  f.engine->MachineDown(machine, 4);
  const uint64_t messages = f.engine->stats().messages;
  f.engine->NodeSend(machine, policy::Address::Scheduler(0), policy::Message{.type = 99}, 5);
  EXPECT_EQ(f.engine->stats().messages, messages);
  EXPECT_FALSE(f.engine->NodeLaunch(machine, TaskRef{JobId(0), 0, 1}, 5).ok());
}

TEST(LiveEngineTest, TimersFireWhenTheClockPassesThem) {
  Fixture f;
  ASSERT_TRUE(f.engine->Start(0, {true, true}).ok());
  f.live.jobs.push_back(f.spec.jobs[0]);
  f.engine->JobAdded(JobId(0), 0, 1'000'000);  // arrives in one second
  EXPECT_TRUE(f.executor.started.empty());
  EXPECT_EQ(f.engine->NextEventTime(), 1'000'000);
  f.engine->Advance(999'999);
  EXPECT_TRUE(f.executor.started.empty());
  f.engine->Advance(1'000'000);
  EXPECT_EQ(f.executor.started.size(), 2u);
}

}  // namespace
}  // namespace weft::sim
