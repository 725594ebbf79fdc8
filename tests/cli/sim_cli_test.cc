// End-to-end tests of `weft sim`, `weft compare` and `weft policies`
// (FORMATS.md sections 2 and 3): result files and their headers, the
// summary's required fields, determinism by seed, and bad input -> exit 2.
#include <filesystem>
#include <string>

#include "tests/cli/cli_test_util.h"
#include "fmt/format.h"
#include "metrics/result_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using SimCliTest = CliTest;

// Two machines of 2 cores; one job a -> b (pipelined) -> c (barrier).
// A job name with a comma checks CSV quoting.
constexpr const char* kWorkload = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "rack_size": 1, "capacity": {"cpu": 2, "mem": 8}}]},
  "jobs": [
    {"name": "etl, nightly", "user": "alice", "stages": [
      {"name": "a", "tasks": 4, "duration": 1.0, "demand": {"cpu": 1, "mem": 1}, "locality": [["m0"], ["m1"]]},
      {"name": "b", "tasks": 4, "duration": 0.5, "demand": {"cpu": 1, "mem": 1},
       "after": [{"stage": "a", "kind": "pipelined"}]},
      {"name": "c", "tasks": 1, "duration": 2.0, "demand": {"cpu": 2, "mem": 2}, "after": ["b"]}]},
    {"name": "adhoc", "user": "bob", "arrival": 0.5, "stages": [
      {"name": "x", "tasks": 2, "duration": 1.0, "demand": {"cpu": 1, "mem": 1}}]}]
})";

TEST_F(SimCliTest, ValidatesEveryBundledExample) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WEFT_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    const Result r = Run({"validate", entry.path().string()});
    EXPECT_EQ(r.exit_code, 0) << entry.path() << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(": ok: "));
  }
  EXPECT_GE(seen, 3);
}

TEST_F(SimCliTest, WritesResultFilesInTheContractFormat) {
  const std::string out = (dir_ / "run").string();
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "-p", "fifo", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("fifo: 2 jobs (0 failed), 11 tasks"));
  const std::string tasks = Slurp(dir_ / "run" / "tasks.csv");
  EXPECT_THAT(tasks, StartsWith("job,stage,task,attempt,machine,ready,start,end,outcome,cpu,mem,disk,net,locality\n"));
  EXPECT_EQ(CountLines(tasks), 1 + 11);
  // The name with a comma is quoted; times have six decimals.
  EXPECT_THAT(tasks, HasSubstr("\"etl, nightly\",a,0,0,m0,0.000000,0.000000,1.000000,ok,1,1,0,0,node\n"));
  const std::string jobs = Slurp(dir_ / "run" / "jobs.csv");
  EXPECT_THAT(jobs, StartsWith("job,user,arrival,start,end,jct"));
  EXPECT_EQ(CountLines(jobs), 3);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run" / "tasks.csv.tmp"));

  const auto summary = nlohmann::json::parse(Slurp(dir_ / "run" / "summary.json"));
  for (const char* key : {"policy", "seed", "model", "overbooking", "jobs", "tasks", "makespan", "avg_jct",
                          "median_jct", "p95_jct", "utilization", "wall_seconds"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary["policy"], "fifo");
  EXPECT_EQ(summary["model"], "fixed");
  EXPECT_EQ(summary["overbooking"], false);
  EXPECT_EQ(summary["jobs"], 2);
  EXPECT_EQ(summary["tasks"], 11);
  EXPECT_TRUE(summary["utilization"].contains("cpu"));
  EXPECT_EQ(summary["check"]["ok"], true);
}

TEST_F(SimCliTest, CompressWritesTheSameBytesAsZstdFiles) {
  const std::string w = Write("w.json", kWorkload);
  for (const auto& [dir, extra] : {std::pair{"plain", ""}, std::pair{"packed", "--compress"}}) {
    std::vector<std::string> args{"sim", "-w", w, "-p", "fifo", "--seed", "3", "--out", (dir_ / dir).string()};
    if (*extra) args.push_back(extra);
    const Result r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* name : {"tasks.csv", "jobs.csv", "timeline.csv"}) {
    EXPECT_FALSE(std::filesystem::exists(dir_ / "packed" / name)) << name;
    std::string unpacked;
    const absl::Status read = ReadResultFile((dir_ / "packed" / name).string(), [&](const char* data, size_t n) {
      unpacked.append(data, n);
      return absl::OkStatus();
    });
    ASSERT_TRUE(read.ok()) << read;
    EXPECT_EQ(unpacked, Slurp(dir_ / "plain" / name)) << name;
    // Compressed for real: a zstd frame starts with its magic number.
    EXPECT_THAT(Slurp(dir_ / "packed" / (std::string(name) + ".zst")), StartsWith("\x28\xb5\x2f\xfd")) << name;
  }
  // weft report reads a compressed run as it reads a plain one.
  const Result report = Run({"report", (dir_ / "packed").string(), "-o", (dir_ / "r.html").string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  // A truncated file is bad input, named.
  const std::string cut = Slurp(dir_ / "packed" / "tasks.csv.zst");
  std::filesystem::create_directories(dir_ / "cut");
  for (const char* name : {"summary.json", "jobs.csv.zst"}) {
    std::filesystem::copy_file(dir_ / "packed" / name, dir_ / "cut" / name);
  }
  Write("cut/tasks.csv.zst", cut.substr(0, cut.size() / 2));
  const Result bad = Run({"report", (dir_ / "cut").string(), "-o", (dir_ / "bad.html").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("tasks.csv.zst"));
}

TEST_F(SimCliTest, SameSeedGivesIdenticalResults) {
  const std::string w = Write("w.json", kWorkload);
  for (const char* dir : {"r1", "r2"}) {
    const Result r = Run({"sim", "-w", w, "-p", "fifo", "--model", "contention", "--latency", "0.01",
                          "--task-failures", "0.3", "--seed", "7", "--out", (dir_ / dir).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(Slurp(dir_ / "r1" / "tasks.csv"), Slurp(dir_ / "r2" / "tasks.csv"));
  EXPECT_EQ(Slurp(dir_ / "r1" / "jobs.csv"), Slurp(dir_ / "r2" / "jobs.csv"));
}

TEST_F(SimCliTest, MachineFailureIsSurvived) {
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "--fail", "m0@0.5:3", "--out",
                        (dir_ / "f").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(Slurp(dir_ / "f" / "tasks.csv"), HasSubstr(",killed,"));
}

TEST_F(SimCliTest, SchedulerFailureIsSurvived) {
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "-p", "sparrow", "--param", "schedulers=2",
                        "--latency", "0.001", "--fail-scheduler", "0@0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(SimCliTest, EventLogHasOneLinePerEvent) {
  const std::string events = (dir_ / "events.csv").string();
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "--events", events});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 11 starts + 11 ends + 2 job ends + header.
  EXPECT_EQ(CountLines(Slurp(events)), 1 + 11 + 11 + 2);
}

TEST_F(SimCliTest, RejectsBadInputWithExitTwo) {
  const std::string w = Write("w.json", kWorkload);
  ExpectBadInput(Run({"sim", "-w", w, "-p", "no-such-policy"}));
  ExpectBadInput(Run({"sim", "-w", w, "--param", "bogus=1"}));
  ExpectBadInput(Run({"sim", "-w", w, "--param", "estimate_noise=abc"}));
  ExpectBadInput(Run({"sim", "-w", w, "--param", "estimate_noise=-1"}));
  ExpectBadInput(Run({"sim", "-w", w, "--model", "quantum"}));
  ExpectBadInput(Run({"sim", "-w", w, "--fail", "m9@1"}));
  ExpectBadInput(Run({"sim", "-w", w, "--fail", "m0@2:1"}));
  ExpectBadInput(Run({"sim", "-w", w, "--fail-scheduler", "x@1"}));
  ExpectBadInput(Run({"sim", "-w", w, "--fail-scheduler", "0"}));
  ExpectBadInput(Run({"sim", "-w", w, "--fail-scheduler", "0@-1"}));
  // fifo has one scheduler replica: failing replica 3 is refused before the run.
  ExpectBadInput(Run({"sim", "-w", w, "-p", "fifo", "--fail-scheduler", "3@1", "--out", (dir_ / "no").string()}));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no")) << "bad input must write nothing";
  ExpectBadInput(Run({"sim", "-w", (dir_ / "missing.json").string()}));
  ExpectBadInput(Run({"compare", "-w", w, "--policies", "fifo,nope"}));
}

TEST_F(SimCliTest, UnknownParamMessageNamesTheKey) {
  const Result r = Run({"sim", "-w", Write("w.json", kWorkload), "--param", "bogus=1"});
  EXPECT_THAT(r.err, HasSubstr("unknown param \"bogus\""));
}

TEST_F(SimCliTest, CompareRunsEveryPolicyAndWritesCsv) {
  const std::string csv = (dir_ / "table.csv").string();
  const Result r = Run({"compare", "-w", Write("w.json", kWorkload), "--policies", "all", "--csv", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Result list = Run({"policies"});
  const int policies = CountLines(list.out);
  EXPECT_GE(policies, 1);
  EXPECT_EQ(CountLines(r.out), 1 + policies);
  EXPECT_THAT(r.out, HasSubstr("fifo"));
  EXPECT_EQ(CountLines(Slurp(csv)), 1 + policies);
}

TEST_F(SimCliTest, PoliciesListsAndDescribes) {
  const Result list = Run({"policies"});
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_THAT(list.out, HasSubstr("fifo "));
  const Result one = Run({"policies", "fifo"});
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_THAT(one.out, HasSubstr("estimate_noise"));
  ExpectBadInput(Run({"policies", "nope"}));
}

}  // namespace
}  // namespace weft
