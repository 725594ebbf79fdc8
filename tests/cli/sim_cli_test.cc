// End-to-end tests of `weft sim`, `weft compare` and `weft policies`
// (FORMATS.md sections 2 and 3): result files and their headers, the
// summary's required fields, determinism by seed, and bad input -> exit 2.
#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"
#include "fmt/format.h"
#include "metrics/result_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
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
  ExpectBadInput(Run({"sim", "-w", w, "--profile", Write("p.json", R"({"weft_profile": 1, "launch_s": -1})"),
                      "--out", (dir_ / "np").string()}));
  ExpectBadInput(Run({"sim", "-w", w, "--profile", "/dev/zero"}));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "np")) << "a bad profile must write nothing";
}

TEST_F(SimCliTest, AProfileIsRecordedAndDelaysLaunches) {
  const std::string w = Write("w.json", kWorkload);
  const std::string p = Write("p.json", R"({"weft_profile": 1, "name": "slow starts", "launch_s": 0.25})");
  ASSERT_EQ(Run({"sim", "-w", w, "-p", "fifo", "--out", (dir_ / "plain").string()}).exit_code, 0);
  const Result r = Run({"sim", "-w", w, "-p", "fifo", "--profile", p, "--out", (dir_ / "prof").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plain = nlohmann::json::parse(Slurp(dir_ / "plain" / "summary.json"));
  const auto prof = nlohmann::json::parse(Slurp(dir_ / "prof" / "summary.json"));
  EXPECT_FALSE(plain.contains("profile"));
  EXPECT_EQ(prof["profile"]["name"], "slow starts");
  EXPECT_EQ(prof["profile"]["launch_s"], 0.25);
  EXPECT_GT(prof["makespan"].get<double>(), plain["makespan"].get<double>());
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
  // The header, a row per policy, then the notes after a blank line.
  const std::string table = r.out.substr(0, r.out.find("\n\n") + 1);
  EXPECT_EQ(CountLines(table), 1 + policies);
  EXPECT_THAT(r.out, HasSubstr("fifo"));
  EXPECT_EQ(CountLines(Slurp(csv)), 1 + policies);
}

// Split a table line into its words.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The row of `policy` in a `weft compare` table, as words.
std::vector<std::string> Row(const std::string& table, const std::string& policy) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(policy + " ")) return Words(line);
  }
  return {};
}

// Held and used cpu are two columns, each the figure of summary.json it is
// named after; what a policy knows and over-commits comes from summary.json.
TEST_F(SimCliTest, CompareShowsCpuHeldAndUsedSideBySide) {
  const std::string w = WEFT_EXAMPLES_DIR "/tpch-small.json", out = (dir_ / "cmp").string();
  const Result r = Run({"compare", "-w", w, "--policies", "fifo,spark-dynamic,ursa,fair-slots", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> head = Words(r.out.substr(0, r.out.find('\n')));
  const auto column = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    EXPECT_NE(it, head.end()) << name << " is not a column: " << r.out;
    return static_cast<size_t>(it - head.begin());
  };
  const size_t held = column("cpu_held"), used = column("cpu_used"), knows = column("clairvoyant"),
               over = column("over-commits");
  EXPECT_EQ(used, held + 1);
  for (const std::string policy : {"fifo", "spark-dynamic", "ursa", "fair-slots"}) {
    const auto summary = nlohmann::json::parse(Slurp(dir_ / "cmp" / policy / "summary.json"));
    const std::vector<std::string> row = Row(r.out, policy);
    ASSERT_EQ(row.size(), head.size()) << policy;
    EXPECT_EQ(row[held], fmt::format("{:.1f}%", 100 * summary["utilization"]["cpu"].get<double>())) << policy;
    EXPECT_EQ(row[used], fmt::format("{:.1f}%", 100 * summary["used"]["cpu"].get<double>())) << policy;
  }
  // spark-dynamic holds far more cpu than it uses: the table must not hide it.
  const std::vector<std::string> spark = Row(r.out, "spark-dynamic");
  EXPECT_NE(spark[held], spark[used]);
  EXPECT_EQ(Row(r.out, "fifo")[knows], "no");
  EXPECT_EQ(Row(r.out, "ursa")[knows], "yes");
  EXPECT_EQ(Row(r.out, "fifo")[over], "none");
  EXPECT_EQ(Row(r.out, "ursa")[over], "cpu,disk,net");
  EXPECT_EQ(Row(r.out, "fair-slots")[over], "all");
  EXPECT_THAT(r.out, HasSubstr("for such tasks used equals held"));
}

TEST_F(SimCliTest, CompareBaselineDividesEachJctByTheBaselines) {
  const std::string w = WEFT_EXAMPLES_DIR "/tpch-small.json";
  const Result r = Run({"compare", "-w", w, "--policies", "fifo,fair", "--baseline", "fair"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> head = Words(r.out.substr(0, r.out.find('\n')));
  ASSERT_EQ(head.back(), "p95_jct/fair");
  const std::vector<std::string> fair = Row(r.out, "fair"), fifo = Row(r.out, "fifo");
  EXPECT_EQ(fair[fair.size() - 2], "1.00x");
  const size_t avg = static_cast<size_t>(std::find(head.begin(), head.end(), "avg_jct") - head.begin());
  EXPECT_EQ(fifo[fifo.size() - 2], fmt::format("{:.2f}x", std::stod(fifo[avg]) / std::stod(fair[avg])));
  ExpectBadInput(Run({"compare", "-w", w, "--policies", "fifo,fair", "--baseline", "drf"}));
}

TEST_F(SimCliTest, PoliciesSayWhatTheyKnowAndOverCommit) {
  const auto line = [&](const std::string& policy, const std::string& prefix) {
    const Result r = Run({"policies", policy});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
      if (l.starts_with(prefix)) return l;
    }
    return std::string("(no line " + prefix + ")");
  };
  for (const std::string p : {"dagps", "tetris", "cp", "ursa", "ursa-yarn", "stripart"}) {
    EXPECT_THAT(line(p, "clairvoyant: "), StartsWith("clairvoyant: yes")) << p;
  }
  for (const std::string p : {"fifo", "fair", "drf", "executor", "spark-dynamic", "sparrow"}) {
    EXPECT_THAT(line(p, "clairvoyant: "), StartsWith("clairvoyant: no")) << p;
  }
  EXPECT_THAT(line("cobra", "clairvoyant: "), StartsWith("clairvoyant: semi"));
  EXPECT_EQ(line("fifo", "over-commits: "), "over-commits: none");
  EXPECT_EQ(line("fair-slots", "over-commits: "), "over-commits: all");
  EXPECT_EQ(line("ursa", "over-commits: "), "over-commits: cpu,disk,net");
  EXPECT_EQ(line("dagps", "over-commits: "), "over-commits: none with the defaults; cpu,disk,net with overbook above 0");
}

// docs/policies.md's table of clairvoyance and over-commitment says what
// `weft policies NAME` says, for every policy.
TEST_F(SimCliTest, PoliciesDocTableMatchesTheBinary) {
  const std::string doc = Slurp(WEFT_EXAMPLES_DIR "/../docs/policies.md");
  const std::regex row(R"(\| (yes|semi|no) \| ([^|]+) \| (`[^|]+`) \|)");
  int listed = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string knows = (*it)[1], over = (*it)[2], names = (*it)[3];
    const std::regex name("`([a-z0-9-]+)`");
    for (auto n = std::sregex_iterator(names.begin(), names.end(), name); n != std::sregex_iterator(); ++n) {
      const Result r = Run({"policies", (*n)[1]});
      EXPECT_THAT(r.out, HasSubstr("\nclairvoyant: " + knows + " (")) << (*n)[1];
      EXPECT_THAT(r.out, HasSubstr("\nover-commits: " + over + "\n")) << (*n)[1];
      ++listed;
    }
  }
  EXPECT_EQ(listed, CountLines(Run({"policies"}).out)) << "every policy is in the table once";
}

// What users read cites papers by title, authors and venue: no internal
// file names or numbering, and COBRA's first author is Zhang.
TEST_F(SimCliTest, PolicyTextsCiteNoInternalNotes) {
  const Result list = Run({"policies"});
  std::istringstream in(list.out);
  int shown = 0;
  for (std::string l; std::getline(in, l);) {
    const std::string name = l.substr(0, l.find(' '));
    const Result one = Run({"policies", name});
    ASSERT_EQ(one.exit_code, 0) << name;
    ++shown;
    EXPECT_FALSE(std::regex_search(one.out, std::regex(R"(paper 00[0-9]|[0-9]{3}_[0-9a-f]{16}|\.txt\b|session [0-9]|issue [0-9])")))
        << one.out;
    EXPECT_THAT(one.out, Not(HasSubstr("Zhao")));
    EXPECT_THAT(one.out, Not(HasSubstr("V-C")));
  }
  EXPECT_GE(shown, 10);
  EXPECT_THAT(Run({"policies", "cobra"}).out, HasSubstr("Zhang et al., COBRA: Toward Provably Efficient Semi-clairvoyant"));
  EXPECT_THAT(Run({"policies", "executor"}).out, HasSubstr("section VII-C (SRS)"));
}

// The workload may be the argument of sim and compare; a multi-value flag
// never swallows it; two workloads at once are refused.
TEST_F(SimCliTest, WorkloadIsAnArgumentNeverSwallowed) {
  const std::string w = Write("w.json", kWorkload);
  const Result by_flag = Run({"sim", "-w", w, "-p", "fifo"}), by_arg = Run({"sim", w, "-p", "fifo"});
  ASSERT_EQ(by_arg.exit_code, 0) << by_arg.err;
  EXPECT_EQ(by_arg.out.substr(0, by_arg.out.find(", ") + 1), by_flag.out.substr(0, by_flag.out.find(", ") + 1));
  EXPECT_THAT(by_arg.out, StartsWith("fifo: 2 jobs (0 failed), 11 tasks"));
  // Held and used cpu, named as such (summary.json's utilization and used).
  const auto summary = [&] {
    EXPECT_EQ(Run({"sim", w, "--out", (dir_ / "one").string()}).exit_code, 0);
    return nlohmann::json::parse(Slurp(dir_ / "one/summary.json"));
  }();
  EXPECT_THAT(by_arg.out, HasSubstr(fmt::format("cpu held {:.1f}%, used {:.1f}%", 100 * summary["utilization"]["cpu"].get<double>(),
                                                100 * summary["used"]["cpu"].get<double>())));
  // After a repeatable flag, the file is still the workload.
  const Result after = Run({"sim", "--param", "estimate_noise=0", w, "--fail", "m0@100"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_THAT(after.out, StartsWith("fifo: 2 jobs"));
  const Result cmp = Run({"compare", "--policies", "fifo,fair", "--param", "estimate_noise=0", w});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("fair "));
  const Result sweep = Run({"sweep", "--policies", "fifo", "--param", "fifo:estimate_noise=0", w, "--out",
                            (dir_ / "s").string()});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "s/runs/w/fifo/estimate_noise=0/seed-1/summary.json"));
  Result r = Run({"sim", w, "-w", w});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("give one workload"));
  ExpectBadInput(Run({"sim", w, "--trace", "swim:" + w}));
  ExpectBadInput(Run({"compare", w, "-w", w}));
}

TEST_F(SimCliTest, HelpHasNoRangeNoiseAndUnknownFlagsGetAHint) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"sim", "--help"}, {"compare", "--help"}, {"sweep", "--help"}, {"report", "--help"}, {"gen", "--help"}}) {
    const Result help = Run(cmd);
    EXPECT_EQ(help.exit_code, 0) << cmd[0];
    EXPECT_FALSE(std::regex_search(help.out, std::regex(R"([A-Z]+:[A-Z]+ in \[|[0-9]{10,})"))) << help.out;
  }
  EXPECT_THAT(Run({"compare", "--help"}).out, HasSubstr("in [1 - 1024]"));  // a range worth reading stays
  // A repeatable flag takes one value each time: its help does not say "TEXT ...".
  EXPECT_THAT(Run({"sim", "--help"}).out, Not(HasSubstr("--fail TEXT ...")));
  EXPECT_THAT(Run({"sweep", "--help"}).out, Not(HasSubstr("--sbatch-arg TEXT ...")));
  Result r = Run({"compare", "--output", "x"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("(did you mean --out?)"));
  r = Run({"sweep", "--polices", "fifo", "--out", (dir_ / "s").string()});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("(did you mean --policies?)"));
  r = Run({"sweep", Write("w.json", kWorkload), "--seeds", "1-5", "--out", (dir_ / "s").string()});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("write a range as 1..5"));
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
