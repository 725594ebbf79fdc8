// File: tests/policy/conformance_test.cc
//
// The conformance suite every registered policy must pass. It iterates
// policy::AllPolicies() at run time, so a newly registered policy is covered
// without touching this file. For each policy, in both execution models,
// with and without message latency, on kSeeds random workloads
// (trace/random_workload.h):
//   - the run completes and its schedule passes the built-in checker
//     (SimulationResult.status ok: every task ran to completion exactly
//     once, after its parents, within capacity unless declared overbooking);
//   - running it again with the same seed gives byte-identical tasks.csv and
//     jobs.csv, both in the same process and in a fresh process (another
//     address-space layout and hash seed: this catches pointer- and
//     hash-order dependence);
// and, with task and machine failures injected, the run still completes.
// A last test shows the checker is live: a policy that overbooks without
// declaring it is caught.
//
// On a failure the workload is saved to /tmp/weft-conformance-<policy>-<seed>.json
// for `weft sim -w ... -p <policy>`.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/status.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "seed_workloads.h"
#include "metrics/schedule_checker.h"
#include "policy/registry.h"
#include "sim/simulation.h"
#include "trace/random_workload.h"
#include "trace/workload_reader.h"

extern char** environ;

namespace weft {
namespace {

namespace fs = std::filesystem;
using sim::ExecutionModel;
using testing::SeedWorkload;

constexpr uint64_t kSeeds = 20;
constexpr TimeUs Sec(double s) { return static_cast<TimeUs>(s * 1e6); }
constexpr char kChildEnv[] = "WEFT_CONFORMANCE_CHILD";

struct Variant {
  const char* name;
  ExecutionModel model;
  TimeUs latency_us;
};
constexpr Variant kVariants[] = {
    {"fixed", ExecutionModel::kFixed, 0},
    {"fixed_latency", ExecutionModel::kFixed, 5'000},
    {"contention", ExecutionModel::kContention, 0},
    {"contention_latency", ExecutionModel::kContention, 5'000},
};

struct Case {
  std::string policy;
  Variant variant;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.policy << " " << c.variant.name; }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const policy::PolicyInfo* p : policy::AllPolicies()) {
    for (const Variant& v : kVariants) cases.push_back({p->name, v});
  }
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.policy + "_" + info.param.variant.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// SaveForReplay writes the seed's workload where a developer can rerun it.
std::string SaveForReplay(const std::string& policy, uint64_t seed) {
  const std::string path = fmt::format("/tmp/weft-conformance-{}-{}.json", policy, seed);
  std::ofstream(path) << RandomWorkloadJson(seed, testing::SeedWorkloadOptions(seed));
  return path;
}

// Simulates `seed` under `c`, writing results to `dir`; returns the status
// of the run and its check (or of the request), ok when all is well.
absl::Status RunWorkload(const Case& c, const Workload& w, uint64_t seed, const std::string& dir,
                         const sim::SimOptions& base = {}) {
  sim::SimulationRequest request;
  request.policy = c.policy;
  request.options = base;
  request.options.seed = seed;
  request.options.model = c.variant.model;
  request.options.latency_us = c.variant.latency_us;
  request.out_dir = dir;
  auto result = sim::Simulate(w, request);
  if (!result.ok()) return result.status();
  if (!result->status.ok()) return result->status;
  if (!result->checked) return absl::InternalError("the checker did not run");
  if (result->stats.jobs_succeeded + result->stats.jobs_failed != w.jobs.size()) {
    return absl::InternalError("the run reported success but not every job ended");
  }
  return absl::OkStatus();
}

absl::Status RunCase(const Case& c, uint64_t seed, const std::string& dir, const sim::SimOptions& base = {}) {
  return RunWorkload(c, SeedWorkload(seed), seed, dir, base);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// FirstDifference names the first line where two files differ ("" if equal).
std::string FirstDifference(const std::string& a_path, const std::string& b_path) {
  const std::string a = ReadFile(a_path), b = ReadFile(b_path);
  if (a == b && !a.empty()) return "";
  if (a.empty()) return a_path + " is empty or missing";
  std::istringstream as(a), bs(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = static_cast<bool>(std::getline(as, la)), gb = static_cast<bool>(std::getline(bs, lb));
    if (!ga || !gb || la != lb) {
      return fmt::format("{} line {}: \"{}\" vs \"{}\"", fs::path(a_path).filename().string(), line,
                         ga ? la : "<end>", gb ? lb : "<end>");
    }
  }
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "weft-conformance-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

// RunInFreshProcess re-executes this test binary to run `c` for every seed
// into dir/seed-N (PolicyConformanceChild below); true if it succeeded.
bool RunInFreshProcess(const Case& c, const std::string& dir) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
  env_text.push_back(fmt::format("{}={}|{}|{}|{}", kChildEnv, c.policy, static_cast<int>(c.variant.model),
                                 c.variant.latency_us, dir));
  std::vector<char*> envp;
  for (std::string& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=PolicyConformanceChild.*";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return false;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class PolicyConformanceTest : public ::testing::TestWithParam<Case> {};

TEST_P(PolicyConformanceTest, CompleteValidAndDeterministicOnRandomWorkloads) {
  const Case& c = GetParam();
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    for (const char* run : {"a", "b"}) {
      const absl::Status s = RunCase(c, seed, tmp.Sub(fmt::format("{}-{}", run, seed)));
      ASSERT_TRUE(s.ok()) << c.policy << " " << c.variant.name << " seed " << seed << ": " << s
                          << "\n  workload saved to " << SaveForReplay(c.policy, seed);
    }
  }
  ASSERT_TRUE(RunInFreshProcess(c, tmp.Sub("fresh"))) << "the run in a fresh process failed";
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    for (const char* file : {"tasks.csv", "jobs.csv"}) {
      const std::string a = tmp.Sub(fmt::format("a-{}/{}", seed, file));
      const std::string same_process = FirstDifference(a, tmp.Sub(fmt::format("b-{}/{}", seed, file)));
      EXPECT_EQ(same_process, "") << c.policy << " " << c.variant.name << " seed " << seed
                                  << ": a rerun in the same process differs";
      const std::string fresh = FirstDifference(a, tmp.Sub(fmt::format("fresh/seed-{}/{}", seed, file)));
      EXPECT_EQ(fresh, "") << c.policy << " " << c.variant.name << " seed " << seed
                           << ": a rerun in a fresh process differs";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyConformanceTest, ::testing::ValuesIn(AllCases()), CaseName);

// The child half of RunInFreshProcess; skipped in a normal test run.
TEST(PolicyConformanceChild, RunsOneCaseForTheParent) {
  const char* spec = std::getenv(kChildEnv);
  if (spec == nullptr) GTEST_SKIP() << "runs only when re-executed by PolicyConformanceTest";
  std::vector<std::string> parts;
  std::istringstream in(spec);
  for (std::string part; std::getline(in, part, '|');) parts.push_back(part);
  ASSERT_EQ(parts.size(), 4u);
  const Case c{parts[0], Variant{"child", static_cast<ExecutionModel>(std::stoi(parts[1])), std::stoll(parts[2])}};
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    const absl::Status s = RunCase(c, seed, fmt::format("{}/seed-{}", parts[3], seed));
    ASSERT_TRUE(s.ok()) << s;
  }
}

class PolicyFailureTest : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const policy::PolicyInfo* p : policy::AllPolicies()) names.push_back(p->name);
  return names;
}

// PolicyTestName: a policy's name as a test name (letters and digits).
std::string PolicyTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// Every policy on random workloads with the workload-model additions on
// (shuffle edges with shuffle sizes, per-task demands and usages): complete,
// valid (the checker's shuffle and capacity rules) and the same when run
// twice, in both execution models, with latency. Slow start is 1 here: with
// early launches, policies that do not know shuffle edges can fill the
// cluster with waiting reducers and starve the maps (Hadoop's slow-start
// deadlock; found by this test with drf, delay, random, tetris,
// coffman-graham, dagps and two Sparrow variants); avoiding it is the
// policy's job (reducer preemption or slots, as RAS does).
// RunTwiceOnRandomWorkloads runs `policy` twice on each of `seeds` random
// workloads (each seed's options changed by `adjust`), with latency in both
// execution models: every run must complete and pass the checker, and the
// two runs must write the same tasks.csv. `after` sees each first run's
// output directory.
void RunTwiceOnRandomWorkloads(const std::string& policy, uint64_t seeds,
                               const std::function<void(RandomWorkloadOptions&)>& adjust,
                               const std::function<void(const std::string&)>& after = {}) {
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  for (const Variant& v : {kVariants[1], kVariants[3]}) {
    const Case c{policy, v};
    for (uint64_t seed = 0; seed < seeds; ++seed) {
      RandomWorkloadOptions o = testing::SeedWorkloadOptions(seed);
      adjust(o);
      auto w = RandomWorkload(seed, o);
      ASSERT_TRUE(w.ok()) << "seed " << seed << ": " << StatusMessage(w.status());
      for (const char* run : {"a", "b"}) {
        const absl::Status s = RunWorkload(c, *w, seed, tmp.Sub(fmt::format("{}-{}-{}", v.name, run, seed)));
        ASSERT_TRUE(s.ok()) << c.policy << " " << v.name << " seed " << seed << ": " << s << "\n"
                            << RandomWorkloadJson(seed, o);
      }
      const std::string diff = FirstDifference(tmp.Sub(fmt::format("{}-a-{}/tasks.csv", v.name, seed)),
                                               tmp.Sub(fmt::format("{}-b-{}/tasks.csv", v.name, seed)));
      EXPECT_EQ(diff, "") << c.policy << " " << v.name << " seed " << seed << ": a rerun differs";
      if (after) after(tmp.Sub(fmt::format("{}-a-{}", v.name, seed)));
    }
  }
}

class PolicyModelAdditionsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PolicyModelAdditionsTest, CompleteValidAndDeterministicWithShufflesAndPerTaskDemands) {
  RunTwiceOnRandomWorkloads(GetParam(), 8, [](RandomWorkloadOptions& o) {
    o.shuffle_prob = 0.7;
    o.slowstart = 1;
    o.task_demands_prob = 0.3;
  });
}

// Profiled phases (their reservation follows the phase; a growing phase may
// wait for room) together with shuffle edges, whose first phase is sometimes
// a "shuffle" phase run alongside the edge's shuffle.
TEST_P(PolicyModelAdditionsTest, CompleteValidAndDeterministicWithProfiledPhases) {
  RunTwiceOnRandomWorkloads(GetParam(), 6, [](RandomWorkloadOptions& o) {
    o.profiled_prob = 0.6;
    o.shuffle_prob = 0.7;
    o.slowstart = 1;
  });
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyModelAdditionsTest, ::testing::ValuesIn(PolicyNames()), PolicyTestName);

// Every policy on random workloads with the locality cost on (model/locality.h:
// tasks placed off their input's machines wait out a remote read): complete,
// valid (the checker's remote-read rule included) and the same when run
// twice, in both execution models, with latency.
class PolicyLocalityCostTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PolicyLocalityCostTest, CompleteValidAndDeterministicWithLocalityCost) {
  uint32_t paid = 0;  // runs where some task read remotely: the cost is exercised
  RunTwiceOnRandomWorkloads(
      GetParam(), 6,
      [](RandomWorkloadOptions& o) {
        o.locality_prob = 0.8;
        o.locality_cost = true;
      },
      [&](const std::string& dir) {
        const std::string summary = ReadFile(dir + "/summary.json");
        paid += summary.find("\"remote_read_tasks\"") != std::string::npos &&
                summary.find("\"remote_read_tasks\": 0") == std::string::npos;
      });
  EXPECT_GT(paid, 0u) << "no run charged a remote read";
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyLocalityCostTest, ::testing::ValuesIn(PolicyNames()), PolicyTestName);


TEST_P(PolicyFailureTest, CompletesDespiteTaskAndMachineFailures) {
  // Attempts fail 5% of the time; machine 0 (every random cluster has one)
  // is down from 1 s to 4 s, machine 1 (when there is one) from 2 s to 5 s.
  const Case c{GetParam(), kVariants[3]};
  TempDir tmp;
  ASSERT_TRUE(tmp.ok());
  for (uint64_t seed = 100; seed < 100 + kSeeds / 2; ++seed) {
    sim::SimOptions o;
    o.task_failure_prob = 0.05;
    o.max_attempts = 10;
    o.failures = {{MachineId(0), Sec(1), Sec(4)}};
    if (SeedWorkload(seed).cluster.size() > 1) o.failures.push_back({MachineId(1), Sec(2), Sec(5)});
    const absl::Status s = RunCase(c, seed, tmp.Sub(fmt::format("{}", seed)), o);
    ASSERT_TRUE(s.ok()) << c.policy << " seed " << seed << " with failures: " << s
                        << "\n  workload saved to " << SaveForReplay(c.policy, seed);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyFailureTest, ::testing::ValuesIn(PolicyNames()), PolicyTestName);

// LyingPolicy says it does not overbook when asked before the run (as
// Simulate asks, to set up the checker) and then, asked by the engine at each
// launch, that it does; its scheduler puts every task on machine 0, fit or
// not. An honest policy cannot produce such a schedule (the engine refuses
// launches beyond what is free unless the policy overbooks), so a lying
// declaration is the way to show the checker judges the schedule itself.
class LyingPolicy final : public policy::Policy {
 public:
  explicit LyingPolicy(bool lie) : lie_(lie) {}
  policy::Knowledge knowledge() const override { return policy::Knowledge::kNonClairvoyant; }
  ResourceMask overbooked_by_design() const override { return lie_ && asked_++ > 0 ? kAllResources : 0; }
  std::unique_ptr<policy::ClusterScheduler> MakeScheduler(policy::Context& ctx, uint32_t) override {
    return std::make_unique<AllOnMachine0>(ctx);
  }

 private:
  struct AllOnMachine0 final : policy::ClusterScheduler {
    using ClusterScheduler::ClusterScheduler;
    void OnTasksReady(const policy::TaskRange& r) override {
      for (uint32_t i = r.begin; i < r.end; ++i) (void)ctx_.Launch(TaskRef{r.job, r.stage, i}, MachineId(0));
    }
  };
  bool lie_;
  mutable int asked_ = 0;
};

constexpr char kOneCore[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [{"name": "a", "tasks": 2, "duration": 1, "demand": {"cpu": 1}}]}]})";

TEST(ScheduleCheckerLiveTest, CatchesAPolicyThatOverbooksWithoutDeclaringIt) {
  const auto w = ParseWorkload(kOneCore);
  ASSERT_TRUE(w.ok());
  LyingPolicy policy(/*lie=*/true);
  sim::Engine engine(*w, policy, sim::SimOptions{});
  ScheduleChecker checker(*w, policy.overbooked());  // as Simulate builds it
  engine.AddObserver(&checker);
  ASSERT_TRUE(engine.Run().ok());  // the engine let both tasks run at once
  EXPECT_EQ(engine.stats().refused_decisions, 0u);
  EXPECT_FALSE(checker.ok());
  ASSERT_FALSE(checker.violations().empty());
  EXPECT_THAT(checker.violations()[0], ::testing::HasSubstr("over the machine's capacity"));
}

TEST(ScheduleCheckerLiveTest, EngineRefusesTheSameScheduleFromAnHonestPolicy) {
  const auto w = ParseWorkload(kOneCore);
  ASSERT_TRUE(w.ok());
  LyingPolicy policy(/*lie=*/false);
  sim::Engine engine(*w, policy, sim::SimOptions{});
  ScheduleChecker checker(*w, policy.overbooked());
  engine.AddObserver(&checker);
  EXPECT_FALSE(engine.Run().ok());  // the second task was refused and never ran
  EXPECT_EQ(engine.stats().refused_decisions, 1u);
  EXPECT_EQ(engine.stats().tasks_done, 1u);
}

}  // namespace
}  // namespace weft
