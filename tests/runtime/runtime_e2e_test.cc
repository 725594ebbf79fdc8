// End-to-end tests of the real runtime on loopback (issue 7): `weft cluster
// up` starts weftd daemons as real processes, jobs run real commands, and
// the tests kill daemons with SIGKILL to check what survives. Every wait is
// bounded; nothing depends on how fast the machine is beyond generous
// timeouts. TearDown always runs `weft cluster down`.
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <set>
#include <thread>

#include "runtime/runtime_e2e_fixture.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// A DAG of real commands: `a` leaves a marker per task; `b` (pipelined on a)
// fails unless its own a-marker exists; `c` (barrier on b) fails unless all
// of b's markers exist. Each task also appends one line to runs.log.
std::string OrderedDag(const fs::path& dir) {
  return Workload(fmt::format(R"({{"name": "ordered", "stages": [
    {{"name": "a", "tasks": 4, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}},
      "command": "echo {{stage}} {{task}} >> {0}/runs.log; touch {0}/a-{{task}}"}},
    {{"name": "b", "tasks": 4, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}},
      "after": [{{"stage": "a", "kind": "pipelined"}}],
      "command": "test -f {0}/a-{{task}} || exit 9; echo {{stage}} {{task}} >> {0}/runs.log; touch {0}/b-{{task}}"}},
    {{"name": "c", "tasks": 1, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}}, "after": ["b"],
      "command": "test $(ls {0} | grep -c '^b-') -eq 4 || exit 9; echo {{stage}} {{task}} >> {0}/runs.log"}}]}})",
                     dir.string()));
}

TEST_F(RuntimeTest, DagOfCommandsRunsInDependencyOrderWithEachTaskOnce) {
  const std::string address = Up(3);
  const fs::path work = WorkDir();
  const auto ids = SubmitIds(address, OrderedDag(work));
  ASSERT_EQ(ids, std::vector<std::string>{"0"});
  const Result r = Wait(address, "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(CountFileLines(work / "runs.log"), 9);
  const auto rows = TaskRows(address);
  ASSERT_EQ(rows.size(), 9u);
  std::set<std::string> tasks;
  for (const std::string& row : rows) {
    EXPECT_THAT(row, HasSubstr(",ok,"));
    tasks.insert(row.substr(0, row.find(",0,node")));  // job,stage,task
  }
  EXPECT_EQ(tasks.size(), 9u);
  const std::string summary = Slurp(dir_ / "results" / "summary.json");
  EXPECT_THAT(summary, HasSubstr(R"("model": "real")"));
  EXPECT_THAT(summary, HasSubstr(R"("jobs": 1)"));
}

// The README's "Run it for real" example, as written there.
TEST_F(RuntimeTest, TheReadmeExampleRuns) {
  const std::string address = Up(3, {"--policy", "fifo"});
  const Result submit = Run({"submit", "--scheduler", address, WEFT_EXAMPLES_DIR "/real-small.json"});
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_EQ(submit.out, "0\n1\n");
  EXPECT_EQ(Wait(address, "0").exit_code, 0);
  EXPECT_EQ(Wait(address, "1").exit_code, 0);
  EXPECT_THAT(Slurp(cluster_ / "node-0" / "node.log"), HasSubstr("registered"));
}

TEST_F(RuntimeTest, FailingCommandIsRetriedThenTheJobFails) {
  const std::string address = Up(2);
  const fs::path work = WorkDir();
  SubmitIds(address, Workload(fmt::format(R"({{"name": "bad", "stages": [{{"name": "s", "tasks": 1, "duration": 1, "demand": {{"cpu": 1, "mem": 0.1}},
      "command": "echo try >> {}/tries.log; exit 3"}}]}})", work.string())));
  const Result r = Wait(address, "0");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("failed"));
  EXPECT_EQ(CountFileLines(work / "tries.log"), 4);  // --max-attempts default
  const auto rows = TaskRows(address);
  ASSERT_EQ(rows.size(), 4u);
  for (const std::string& row : rows) EXPECT_THAT(row, HasSubstr(",failed,"));
}

// `weft status JOB` of a failed job says why (issue 32 §4): which task,
// attempt and node, the exit code, and the end of the task's stderr.
TEST_F(RuntimeTest, StatusOfAFailedJobSaysWhy) {
  const std::string address = Up(1);
  SubmitIds(address, Workload(R"({"name": "boomjob", "stages": [{"name": "s", "tasks": 1, "duration": 0.1, "demand": {"cpu": 0.5, "mem": 0.1},
      "command": "sh -c 'echo boom >&2; exit 7'"}]})"));
  EXPECT_EQ(Wait(address, "0").exit_code, 1);
  const Result r = Run({"status", "--scheduler", address, "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("job 0 failed: stage 0 task 0 attempt 3 on node node-0: exit code 7\n"));
  EXPECT_THAT(r.out, HasSubstr("  its stderr ends with:\n    boom\n"));
  // A listing stays one line per job.
  const Result all = Run({"status", "--scheduler", address});
  EXPECT_THAT(all.out, testing::Not(HasSubstr("stderr")));
}

TEST_F(RuntimeTest, JobSurvivesANodeKilledMidTask) {
  const std::string address = Up(3);
  const fs::path work = WorkDir();
  SubmitIds(address, Workload(fmt::format(R"({{"name": "slow", "stages": [{{"name": "s", "tasks": 3, "duration": 1, "demand": {{"cpu": 1, "mem": 0.1}},
      "command": "touch {0}/started-{{task}}; sleep 1; echo {{task}} >> {0}/done.log"}}]}})", work.string())));
  ASSERT_TRUE(Until([&] { return fs::exists(work / "started-0") && fs::exists(work / "started-1") &&
                                 fs::exists(work / "started-2"); }));
  ASSERT_EQ(kill(PidOf("node-1"), SIGKILL), 0);
  const Result r = Wait(address, "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(CountFileLines(work / "done.log"), 3);
  const auto rows = TaskRows(address);
  int killed = 0, ok = 0;
  for (const std::string& row : rows) {
    killed += row.find(",killed,") != std::string::npos;
    ok += row.find(",ok,") != std::string::npos;
  }
  EXPECT_EQ(killed, 1);
  EXPECT_EQ(ok, 3);
}

TEST_F(RuntimeTest, SchedulerKilledAndRestartedOnItsStateFinishesTheJobWithoutRerunningDoneTasks) {
  const std::string address = Up(2);
  const fs::path work = WorkDir();
  SubmitIds(address, Workload(fmt::format(R"({{"name": "two-phase", "stages": [
      {{"name": "a", "tasks": 4, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}},
        "command": "echo {{task}} >> {0}/a.log"}},
      {{"name": "b", "tasks": 2, "duration": 2, "demand": {{"cpu": 1, "mem": 0.1}}, "after": ["a"],
        "command": "touch {0}/b-started-{{task}}; sleep 1.5; echo {{task}} >> {0}/b.log"}}]}})", work.string())));
  ASSERT_TRUE(Until([&] { return fs::exists(work / "b-started-0") || fs::exists(work / "b-started-1"); }));
  const pid_t scheduler = PidOf("scheduler");
  ASSERT_EQ(kill(scheduler, SIGKILL), 0);
  // Restart on the same state dir and address; the nodes reconnect by themselves.
  const pid_t restarted = SpawnWeftd({"scheduler", "--listen", address, "--state", (cluster_ / "scheduler").string(),
                                      "--nodes", "2"},
                                     cluster_ / "restarted.out");
  std::ofstream(cluster_ / "scheduler.pid") << restarted << "\n";
  const Result r = Wait(address, "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(cluster_ / "restarted.out");
  EXPECT_EQ(CountFileLines(work / "a.log"), 4);  // stage a was journaled as done: not rerun
  EXPECT_EQ(CountFileLines(work / "b.log"), 2);
  ExpectEachTaskOkOnce(address, 6);
}

TEST_F(RuntimeTest, SparrowsNodeAgentsRunInTheNodeDaemonsAndSurviveANodeLoss) {
  const std::string address = Up(3, {"--policy", "sparrow"});
  const fs::path work = WorkDir();
  SubmitIds(address, Workload(fmt::format(R"({{"name": "late-binding", "stages": [
      {{"name": "a", "tasks": 3, "duration": 1, "demand": {{"cpu": 1, "mem": 0.1}},
        "command": "touch {0}/started-{{task}}; sleep 1; echo {{task}} >> {0}/a.log"}},
      {{"name": "b", "tasks": 3, "duration": 0.1, "demand": {{"cpu": 1, "mem": 0.1}}, "after": ["a"],
        "command": "echo {{task}} >> {0}/b.log"}}]}})", work.string())));
  ASSERT_TRUE(Until([&] { return fs::exists(work / "started-0") && fs::exists(work / "started-1") &&
                                 fs::exists(work / "started-2"); }));
  for (int n = 0; n < 3; ++n) {
    EXPECT_THAT(Slurp(cluster_ / fmt::format("node-{}", n) / "node.log"),
                HasSubstr("hosting the node agent of policy sparrow"));
  }
  ASSERT_EQ(kill(PidOf("node-2"), SIGKILL), 0);
  const Result r = Wait(address, "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(CountFileLines(work / "b.log"), 3);
}

TEST_F(RuntimeTest, MalformedJobIsRefusedAndNothingIsRecorded) {
  const std::string address = Up(1);
  const Result r = Run({"submit", "--scheduler", address,
                        Write("bad.json", Workload(R"({"name": "j", "stages": [{"name": "s", "tasks": 1, "duration": -1}]})"))});
  ExpectBadInput(r);
  const Result status = Run({"status", "--scheduler", address});
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_THAT(status.out, ::testing::Not(HasSubstr(" j ")));
  // A job that fits no node (the live nodes have 1 core) is refused by the scheduler itself.
  const Result too_big = Run({"submit", "--scheduler", address,
                              Write("big.json", R"({"weft": 1, "cluster": {"machines": [{"name": "x", "capacity": {"cpu": 8, "mem": 1}}]},
                                "jobs": [{"name": "big", "stages": [{"name": "s", "tasks": 1, "duration": 1, "demand": {"cpu": 8}}]}]})")});
  ExpectBadInput(too_big);
  EXPECT_THAT(Run({"status", "--scheduler", address}).out, ::testing::Not(HasSubstr("big")));
}

TEST_F(RuntimeTest, NonLoopbackListenWithoutTokenIsRefused) {
  const Result r = RunProgram(WEFTD_BINARY, {"scheduler", "--listen", "0.0.0.0:0", "--state", (dir_ / "s").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--token-file"));
}

TEST_F(RuntimeTest, RpcWithoutTheTokenIsRejected) {
  const std::string token = Write("token", "s3cret-token\n");
  chmod(token.c_str(), 0600);  // a token others can read is refused
  const fs::path state = dir_ / "s";
  SpawnWeftd({"scheduler", "--listen", "0.0.0.0:0", "--state", state.string(), "--token-file", token, "--insecure"},
             dir_ / "d.out");
  ASSERT_TRUE(Until([&] { return fs::exists(state / "address"); }));
  const std::string port = Slurp(state / "address").substr(Slurp(state / "address").rfind(':'));
  const std::string address = "127.0.0.1" + port.substr(0, port.size() - 1);
  const Result without = Run({"status", "--scheduler", address});
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_THAT(without.err, HasSubstr("token"));
  const std::string wrong_token = Write("wrong", "s3cret-tokeN");
  chmod(wrong_token.c_str(), 0600);
  const Result wrong = Run({"status", "--scheduler", address, "--token-file", wrong_token, "--insecure"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_THAT(wrong.err, HasSubstr("unauthenticated"));
  // Clear text with a token is sent only when asked for (docs/runtime.md, "Security").
  const Result unasked = Run({"status", "--scheduler", address, "--token-file", token});
  EXPECT_EQ(unasked.exit_code, 2);
  EXPECT_EQ(CountLines(unasked.err), 1) << unasked.err;
  EXPECT_THAT(unasked.err, HasSubstr("--insecure"));
  const Result with = Run({"status", "--scheduler", address, "--token-file", token, "--insecure"});
  EXPECT_EQ(with.exit_code, 0) << with.err;
}

TEST_F(RuntimeTest, ASilentNodeIsLostAfterItsHeartbeatsStopAndRegistersAgainWhenItWakes) {
  const std::string address = Up(2);
  const fs::path work = WorkDir();
  SubmitIds(address, Workload(fmt::format(R"({{"name": "two", "stages": [{{"name": "s", "tasks": 2, "duration": 0.5, "demand": {{"cpu": 1, "mem": 0.1}},
      "command": "touch {0}/started-{{task}}; sleep 0.5"}}]}})", work.string())));
  ASSERT_TRUE(Until([&] { return fs::exists(work / "started-0") && fs::exists(work / "started-1"); }));
  const pid_t frozen = PidOf("node-0");
  ASSERT_EQ(kill(frozen, SIGSTOP), 0);  // its stream stays open, its heartbeats stop
  const Result r = Wait(address, "0");  // the scheduler's --node-timeout is 5 s
  kill(frozen, SIGCONT);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  int killed = 0;
  for (const std::string& row : TaskRows(address)) killed += row.find(",node-0,") != std::string::npos &&
                                                             row.find(",killed,") != std::string::npos;
  EXPECT_EQ(killed, 1);
  EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 2/2 up") != std::string::npos; }));
}

TEST_F(RuntimeTest, ClientsFailOverToTheNextSchedulerAddress) {
  const std::string address = Up(1);
  // Nothing listens at the first (a socket path, as the token goes to TCP
  // addresses only with TLS or --insecure).
  const std::string both = "unix:" + (dir_ / "nobody.sock").string() + "," + address;
  const auto ids = SubmitIds(both, Workload(R"({"name": "one", "stages": [{"name": "s", "tasks": 1, "duration": 0.01, "demand": {"cpu": 1, "mem": 0.1}}]})"));
  ASSERT_EQ(ids, std::vector<std::string>{"0"});
  EXPECT_EQ(Wait(both, "0").exit_code, 0);
  const Result none = Run({"status", "--scheduler", "127.0.0.1:1"});
  EXPECT_EQ(none.exit_code, 1);  // unreachable: not bad input
  EXPECT_EQ(CountLines(none.err), 1) << none.err;
}

// Two scheduler daemons as Sparrow replicas sharing three nodes: a client
// gives both addresses; each replica owns the jobs submitted to it (ids
// even at replica 0, odd at replica 1), and the nodes' agents serve both.
class ReplicaTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    both_ = Up(3, {"--policy", "sparrow", "--replicas", "2"});
    const auto comma = both_.find(',');
    ASSERT_NE(comma, std::string::npos) << both_;
    first_ = both_.substr(0, comma);
    second_ = both_.substr(comma + 1);
  }

  // SlowJob: `tasks` tasks that mark their start, sleep, then log once to NAME.log.
  std::string SlowJob(const std::string& name, int tasks, double sleep_s) {
    return Workload(fmt::format(R"({{"name": "{0}", "stages": [{{"name": "s", "tasks": {1}, "duration": 1,
        "demand": {{"cpu": 1, "mem": 0.1}},
        "command": "touch {3}/{0}-started-{{task}}; sleep {2}; echo {{task}} >> {3}/{0}.log"}}]}})",
                                name, tasks, sleep_s, WorkDir().string()));
  }

  std::string both_, first_, second_;
};

TEST_F(ReplicaTest, EachReplicaRunsTheJobsSubmittedToItOnTheSharedNodes) {
  EXPECT_EQ(SubmitIds(first_ + "," + second_, SlowJob("x", 4, 0.2)), std::vector<std::string>{"0"});
  EXPECT_EQ(SubmitIds(second_ + "," + first_, SlowJob("y", 4, 0.2)), std::vector<std::string>{"1"});
  EXPECT_EQ(SubmitIds(second_, SlowJob("z", 2, 0.1)), std::vector<std::string>{"3"});
  for (const char* job : {"0", "1", "3"}) EXPECT_EQ(Wait(both_, job).exit_code, 0) << job;
  EXPECT_EQ(CountFileLines(WorkDir() / "x.log"), 4);
  EXPECT_EQ(CountFileLines(WorkDir() / "y.log"), 4);
  EXPECT_EQ(CountFileLines(WorkDir() / "z.log"), 2);
  // A job is known only to its replica; the client finds it through either order.
  const Result elsewhere = Run({"status", "--scheduler", first_, "1"});
  EXPECT_EQ(elsewhere.exit_code, 2);  // no such job there: bad input
  EXPECT_THAT(elsewhere.err, HasSubstr("belongs to replica 1"));
  EXPECT_THAT(Run({"status", "--scheduler", first_ + "," + second_, "1"}).out, HasSubstr("succeeded"));
  const Result status = Run({"status", "--scheduler", both_});
  EXPECT_THAT(status.out, HasSubstr("scheduler replica 0 of 2"));
  EXPECT_THAT(status.out, HasSubstr("scheduler replica 1 of 2"));
  // One export for the whole run: every task of the three jobs once, ok.
  const auto rows = TaskRows(both_);
  EXPECT_EQ(rows.size(), 10u);
  for (const std::string& row : rows) EXPECT_THAT(row, HasSubstr(",ok,"));
  for (int n = 0; n < 3; ++n) {
    const std::string log = Slurp(cluster_ / fmt::format("node-{}", n) / "node.log");
    EXPECT_THAT(log, HasSubstr("(scheduler replica 0 of 2)"));
    EXPECT_THAT(log, HasSubstr("(scheduler replica 1 of 2)"));
  }
}

TEST_F(ReplicaTest, AReplicaKilledLeavesTheOtherRunningAndItsJobsFinishWhenItComesBack) {
  SubmitIds(first_, SlowJob("x", 3, 1.5));
  SubmitIds(second_, SlowJob("y", 3, 1.5));
  ASSERT_TRUE(Until([&] { return fs::exists(WorkDir() / "x-started-0") && fs::exists(WorkDir() / "y-started-0"); }));
  ASSERT_EQ(kill(PidOf("scheduler-0"), SIGKILL), 0);
  // Clients fail over: a submission through both addresses lands on replica 1.
  EXPECT_EQ(SubmitIds(both_, SlowJob("z", 2, 0.1)), std::vector<std::string>{"3"});
  EXPECT_EQ(Wait(both_, "1").exit_code, 0);
  EXPECT_EQ(Wait(both_, "3").exit_code, 0);
  EXPECT_EQ(CountFileLines(WorkDir() / "y.log"), 3);  // replica 0's death did not touch replica 1's tasks
  // Replica 0 comes back on its state dir and address and finishes its job.
  const pid_t restarted = SpawnWeftd({"scheduler", "--listen", first_, "--state", (cluster_ / "scheduler-0").string(),
                                      "--nodes", "3", "--replica", "0", "--replicas", "2"},
                                     cluster_ / "restarted.out");
  std::ofstream(cluster_ / "scheduler-0.pid") << restarted << "\n";
  const Result r = Wait(both_, "0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << Slurp(cluster_ / "restarted.out");
  ExpectEachTaskOkOnce(both_, 8);
}

// Issue 20 bug 10, Sparrow's failover for real: replica 0 dies (kill -9)
// while its job runs; `weft wait` moves the job's unfinished tasks to
// replica 1 once replica 0 has been unreachable for a second, and the job
// finishes there without rerunning a task replica 0 had finished. When
// replica 0 comes back it runs nothing of the job and says where it went.
TEST_F(ReplicaTest, AKilledReplicasJobMovesToALiveOneWithoutRerunningFinishedTasks) {
  EXPECT_EQ(SubmitIds(first_, SlowJob("x", 6, 1.0)), std::vector<std::string>{"0"});
  // Some tasks are done and journaled (the first wave, one per node); the others run.
  ASSERT_TRUE(Until([&] {
    const std::string out = Run({"status", "--scheduler", first_, "0"}).out;
    return out.find(" 3/6 ") != std::string::npos || out.find(" 4/6 ") != std::string::npos ||
           out.find(" 5/6 ") != std::string::npos;
  }));
  ASSERT_EQ(kill(PidOf("scheduler-0"), SIGKILL), 0);
  const Result moved = Run({"wait", "--scheduler", both_, "0", "--timeout", "60", "--failover-after", "1"});
  EXPECT_EQ(moved.exit_code, 0) << moved.out << moved.err;
  EXPECT_THAT(moved.out, testing::ContainsRegex("job 0 moved to job 1 \\([345] of its tasks were done\\)"));
  EXPECT_THAT(moved.out, HasSubstr("job 1 succeeded"));
  // Every task ran to its end exactly once, over both replicas.
  std::map<std::string, int> ends;
  std::istringstream log(Slurp(WorkDir() / "x.log"));
  for (std::string line; std::getline(log, line);) ++ends[line];
  EXPECT_EQ(ends.size(), 6u);
  for (const auto& [task, n] : ends) EXPECT_EQ(n, 1) << "task " << task << " ran to its end " << n << " times";
  // Replica 0 back on its state dir: the job is not run there again, and a
  // client waiting on it follows it to job 1.
  const pid_t restarted = SpawnWeftd({"scheduler", "--listen", first_, "--state", (cluster_ / "scheduler-0").string(),
                                      "--nodes", "3", "--replica", "0", "--replicas", "2"},
                                     cluster_ / "restarted.out");
  std::ofstream(cluster_ / "scheduler-0.pid") << restarted << "\n";
  const Result again = Wait(both_, "0");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("job 0 moved to job 1\n"));
  EXPECT_THAT(Run({"status", "--scheduler", first_, "0"}).out, HasSubstr("moved"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // what it would rerun would have ended by now
  EXPECT_EQ(CountFileLines(WorkDir() / "x.log"), 6);
  // In the merged export, each of the six tasks is ok once.
  std::map<std::string, int> ok;
  for (const std::string& row : TaskRows(both_)) {
    if (row.find(",ok,") == std::string::npos) continue;
    std::vector<std::string> f;
    std::istringstream in(row);
    for (std::string cell; std::getline(in, cell, ',');) f.push_back(cell);
    ++ok[f[1] + "/" + f[2]];
  }
  EXPECT_EQ(ok.size(), 6u);
  for (const auto& [task, n] : ok) EXPECT_EQ(n, 1) << task << " ok " << n << " times";
}

TEST_F(RuntimeTest, ReplicasOfAPolicyWithoutNodeAgentsAreRefused) {
  cluster_ = dir_ / "refused";
  const Result r = Run({"cluster", "up", "--nodes", "1", "--policy", "fifo", "--replicas", "2", "--dir",
                        cluster_.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("node agents"));
}

// Two daemons that claim to be replicas of one scheduler but run different
// parameters: a node serves the first whose agent it builds and refuses the
// other, which then never sees the node up.
TEST_F(RuntimeTest, ANodeRefusesAReplicaWhosePolicyDiffersFromTheOthers) {
  std::vector<std::string> addresses;
  for (int r = 0; r < 2; ++r) {
    const fs::path state = dir_ / fmt::format("s{}", r);
    SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", state.string(), "--policy", "sparrow", "--param",
                fmt::format("probe_ratio={}", r + 2), "--replica", std::to_string(r), "--replicas", "2"},
               dir_ / fmt::format("s{}.out", r));
    ASSERT_TRUE(Until([&] { return fs::exists(state / "address"); }));
    const std::string address = Slurp(state / "address");
    addresses.push_back(address.substr(0, address.find('\n')));
  }
  const fs::path work = dir_ / "n0";
  SpawnWeftd({"node", "--scheduler", addresses[0] + "," + addresses[1], "--name", "n0", "--cpu", "1", "--mem", "1",
              "--work-dir", work.string()},
             dir_ / "n0.out");
  ASSERT_TRUE(Until([&] { return Slurp(work / "node.log").find("is not served") != std::string::npos; }))
      << Slurp(work / "node.log");
  EXPECT_THAT(Slurp(work / "node.log"), HasSubstr("runs another policy or parameters"));
  // The node stays with the daemon it serves; the refused one sees it only
  // in the moment between each (paused) retry and its refusal.
  int up_throughout = 0;
  for (const std::string& a : addresses) {
    bool up = true;
    for (int sample = 0; sample < 5; ++sample) {
      up &= Run({"status", "--scheduler", a}).out.find("nodes 1/1 up") != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    up_throughout += up;
  }
  EXPECT_EQ(up_throughout, 1);
}

bool GroupAlive(pid_t pgid) { return kill(-pgid, 0) == 0; }

TEST_F(RuntimeTest, ClusterDownLeavesNoProcessBehindEvenAfterANodeWasKilled) {
  const std::string address = Up(2);
  const fs::path work = WorkDir();
  // Each task records its process group, then leaves a grandchild running.
  SubmitIds(address, Workload(fmt::format(R"({{"name": "forever", "stages": [{{"name": "s", "tasks": 2, "duration": 30, "demand": {{"cpu": 1, "mem": 0.1}},
      "command": "sleep 30 & echo $$ > {0}/pgid-{{task}}.tmp; mv {0}/pgid-{{task}}.tmp {0}/pgid-{{task}}; sleep 30"}}]}})",
                                 work.string())));
  ASSERT_TRUE(Until([&] { return fs::exists(work / "pgid-0") && fs::exists(work / "pgid-1"); }));
  pid_t groups[2];
  std::ifstream(work / "pgid-0") >> groups[0];
  std::ifstream(work / "pgid-1") >> groups[1];
  ASSERT_TRUE(GroupAlive(groups[0]));
  ASSERT_TRUE(GroupAlive(groups[1]));
  const pid_t node0 = PidOf("node-0"), node1 = PidOf("node-1"), scheduler = PidOf("scheduler");
  ASSERT_EQ(kill(node0, SIGKILL), 0);  // its task is orphaned until cluster down
  const Result down = Run({"cluster", "down", "--dir", cluster_.string()});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_TRUE(Until([&] { return !GroupAlive(groups[0]) && !GroupAlive(groups[1]); }));
  for (pid_t daemon : {node0, node1, scheduler}) {
    EXPECT_TRUE(Until([&] {
      std::ifstream stat(fmt::format("/proc/{}/stat", daemon));
      std::string pid, comm, state;
      return !(stat >> pid >> comm >> state) || state == "Z";
    })) << "daemon " << daemon << " still runs";
  }
}

TEST_F(RuntimeTest, EveryPolicyRunsASmallDag) {
  const Result list = Run({"policies"});
  ASSERT_EQ(list.exit_code, 0);
  std::vector<std::string> policies;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] != ' ') policies.push_back(line.substr(0, line.find(' ')));
  }
  ASSERT_GE(policies.size(), 10u);
  const std::string dag = Workload(R"({"name": "small", "stages": [
      {"name": "a", "tasks": 3, "duration": 0.02, "demand": {"cpu": 1, "mem": 0.2}},
      {"name": "b", "tasks": 3, "duration": 0.02, "demand": {"cpu": 1, "mem": 0.2}, "after": [{"stage": "a", "kind": "pipelined"}]},
      {"name": "c", "tasks": 1, "duration": 0.02, "demand": {"cpu": 1, "mem": 0.2}, "after": ["b"]}]})");
  for (const std::string& policy : policies) {
    SCOPED_TRACE(policy);
    const std::string address = Up(2, {"--policy", policy}, "cluster-" + policy);
    const auto ids = SubmitIds(address, dag);
    ASSERT_EQ(ids.size(), 1u);
    const Result r = Wait(address, ids[0], 30);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
  }
}

// Retention through `weft cluster up --retain` (issue 20): ended jobs beyond
// it are compacted; status says so, wait still answers, and the export still
// has every job's task rows (from the state dir's results archive).
TEST_F(RuntimeTest, ClusterUpRetainCompactsEndedJobsAndTheExportKeepsThem) {
  const std::string address = Up(1, {"--retain", "5"});
  std::string jobs;
  for (int i = 0; i < 300; ++i) {
    jobs += fmt::format(R"({}{{"name": "j{}", "stages": [{{"name": "s", "tasks": 1, "duration": 0.000001, "demand": {{"cpu": 1}}}}]}})",
                        i == 0 ? "" : ",", i);
  }
  const std::vector<std::string> ids = SubmitIds(
      address, R"({"weft": 1, "cluster": {"machines": [{"name": "x", "capacity": {"cpu": 1, "mem": 1}}]}, "jobs": [)" + jobs + "]}");
  ASSERT_EQ(ids.size(), 300u);
  EXPECT_EQ(Wait(address, "299").exit_code, 0);
  EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address, "0"}).out.find("(compacted)") != std::string::npos; }));
  EXPECT_EQ(Wait(address, "0").exit_code, 0);  // how a compacted job ended is kept
  EXPECT_EQ(TaskRows(address).size(), 300u);
  EXPECT_TRUE(fs::exists(cluster_ / "scheduler" / "results-archive.binpb"));
}

}  // namespace
}  // namespace weft
