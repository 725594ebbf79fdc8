// File: tests/cli/trace_cli_test.cc
//
// `weft trace convert|inspect` and `weft sim|compare --trace` end to end:
// the round trip (a converted trace simulates byte for byte as its direct
// replay), the data-quality report, and the bad-input contract (exit 2, one
// stderr line naming file, row and column, no output file left).
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "cli_test_util.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft {
namespace {

using ::testing::HasSubstr;

// A google-2011 task_events part: two jobs; job 2's task 1 is killed.
std::string TaskEvents() {
  std::string rows;
  auto event = [&](int64_t t, int job, int task, int type, const char* cpu) {
    rows += std::to_string(t) + ",," + std::to_string(job) + "," + std::to_string(task) + ",5," + std::to_string(type) +
            ",user" + std::to_string(job) + ",0,1," + cpu + ",0.1,0.001,0\n";
  };
  for (int task = 0; task < 3; ++task) event(1000000, 1, task, 0, "0.2");
  event(2000000, 2, 0, 0, "0.5");
  event(2000000, 2, 1, 0, "0.5");
  for (int task = 0; task < 3; ++task) event(3000000, 1, task, 1, "0.2");
  event(3000000, 2, 0, 1, "0.5");
  event(3000000, 2, 1, 1, "0.5");
  for (int task = 0; task < 3; ++task) event(4000000 + task * 1000000, 1, task, 4, "0.2");
  event(9000000, 2, 0, 4, "0.5");
  event(9500000, 2, 1, 5, "0.5");
  return rows;
}

class TraceCliTest : public CliTest {
 protected:
  std::string Trace() {
    std::filesystem::create_directories(dir_ / "g" / "task_events");
    Write("g/task_events/part-00000-of-00500.csv", TaskEvents());
    return "google-2011:" + (dir_ / "g").string();
  }
};

TEST_F(TraceCliTest, ConvertThenSimIsByteIdenticalToADirectReplay) {
  const std::string trace = Trace(), w = (dir_ / "w.json").string();
  const Result c = Run({"trace", "convert", trace, "-o", w, "--machines", "2"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_THAT(c.out, HasSubstr("wrote 2 jobs, 4 tasks to " + w));
  for (const std::string policy : {"fifo", "tetris"}) {
    const Result a = Run({"sim", "-w", w, "-p", policy, "--seed", "3", "--out", (dir_ / "a").string()});
    const Result b = Run({"sim", "--trace", trace, "--machines", "2", "-p", policy, "--seed", "3", "--out",
                          (dir_ / "b").string()});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_THAT(b.err, HasSubstr("trace: read: 15 rows, 2 jobs assembled, 2 jobs and 4 tasks kept"));
    for (const char* file : {"tasks.csv", "jobs.csv"}) {
      EXPECT_EQ(Slurp(dir_ / "a" / file), Slurp(dir_ / "b" / file)) << policy << " " << file;
    }
    EXPECT_EQ(CountLines(Slurp(dir_ / "b" / "tasks.csv")), 5);  // header + 4 tasks
  }
}

TEST_F(TraceCliTest, RealGoogleSampleRoundTrips) {
  const std::string raw = WEFT_SHARED_DATA_DIR "/google-2011-borg-sample/raw";
  if (!std::filesystem::exists(raw)) GTEST_SKIP() << "needs ../shared/data/google-2011-borg-sample/raw (not found)";
  const std::string w = (dir_ / "g.json").string();
  ASSERT_EQ(Run({"trace", "convert", "google-2011:" + raw, "-o", w, "--window", "5600:9000"}).exit_code, 0);
  const Result a = Run({"sim", "-w", w, "-p", "fifo", "--out", (dir_ / "a").string()});
  const Result b = Run({"sim", "--trace", "google-2011:" + raw, "--window", "5600:9000", "-p", "fifo", "--out",
                        (dir_ / "b").string()});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(Slurp(dir_ / "a" / "tasks.csv"), Slurp(dir_ / "b" / "tasks.csv"));
  EXPECT_EQ(Slurp(dir_ / "a" / "jobs.csv"), Slurp(dir_ / "b" / "jobs.csv"));
}

TEST_F(TraceCliTest, InspectPrintsTheDataQualityReport) {
  const Result r = Run({"trace", "inspect", Trace()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("read: 15 rows, 2 jobs assembled, 2 jobs and 4 tasks kept\n"));
  EXPECT_THAT(r.out, HasSubstr("skipped: 1 tasks not finished in the files"));
  EXPECT_THAT(r.out, HasSubstr("workload: 2 jobs, 2 stages, 4 tasks on 12583 machines\n"));
  EXPECT_THAT(r.out, HasSubstr("arrivals: first 1 s, last 2 s, span 1 s, 1 jobs/s\n"));
  EXPECT_THAT(r.out, HasSubstr("task duration (s): p50 2, p90 3, p99 3, max 6\n"));
}

TEST_F(TraceCliTest, CompareReplaysATrace) {
  const Result r = Run({"compare", "--trace", Trace(), "--policies", "fifo,fair"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out.substr(0, r.out.find("\n\n") + 1)), 3);  // the header and two rows, then the notes
  EXPECT_THAT(r.out, HasSubstr("fair "));
}

TEST_F(TraceCliTest, MalformedTraceExitsTwoAndWritesNothing) {
  std::filesystem::create_directories(dir_ / "g" / "task_events");
  Write("g/task_events/part-0.csv", TaskEvents() + "1,,2,3,4,x,u,0,1,0.1,0.1,0,0\n");
  const std::string w = (dir_ / "w.json").string();
  const Result r = Run({"trace", "convert", "google-2011:" + (dir_ / "g").string(), "-o", w});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("part-0.csv: row 16, column 6 (event_type): \"x\" is not a whole number"));
  EXPECT_FALSE(std::filesystem::exists(w));
  EXPECT_FALSE(std::filesystem::exists(w + ".tmp"));
  ExpectBadInput(Run({"sim", "--trace", "google-2011:" + (dir_ / "g").string()}));
}

TEST_F(TraceCliTest, GzipPartCutShortExitsTwoNamingIt) {
  // A gzip part that is only its 10-byte header: a download cut short.
  std::filesystem::create_directories(dir_ / "g" / "task_events");
  const std::string part = Write("g/task_events/part-00000-of-00500.csv.gz",
                                 std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10));
  const Result r = Run({"trace", "inspect", "google-2011:" + (dir_ / "g").string()});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr(part + ": cannot read: unexpected end of file"));
}

TEST_F(TraceCliTest, BadTraceFlagsExitTwo) {
  const std::string trace = Trace();
  ExpectBadInput(Run({"sim", "--trace", "borg:" + (dir_ / "g").string()}));
  ExpectBadInput(Run({"sim", "--trace", trace, "-w", "x.json"}));
  ExpectBadInput(Run({"sim", "--window", "0:10"}));
  ExpectBadInput(Run({"sim", "--trace", trace, "--window", "10:5"}));
  ExpectBadInput(Run({"trace", "inspect", "swim:" + (dir_ / "none.tsv").string()}));
  const Result r = Run({"trace", "inspect", trace, "--window", "100:"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("no job left to run"));
}

// A folder stands for the files of its format, for formats whose readers
// take files (alibaba-2017, alibaba-2018, tpch-cloudlab, swim): the report
// of the folder is the report of its files; other files in it are ignored.
TEST_F(TraceCliTest, InspectAcceptsAFolderForEveryFormat) {
  std::filesystem::create_directories(dir_ / "ali");
  Write("ali/batch_task.csv", "6459,6524,3,4,15,Terminated,50,0.007956928\n6457,6533,3,5,1,Terminated,50,0.004\n"
                              "7000,7100,4,1,2,Terminated,100,0.01\n");
  Write("ali/SOURCES.md", "not a trace\n");
  const Result folder = Run({"trace", "inspect", "alibaba-2017:" + (dir_ / "ali").string()});
  const Result file = Run({"trace", "inspect", "alibaba-2017:" + (dir_ / "ali/batch_task.csv").string()});
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_THAT(folder.out, HasSubstr("2 jobs"));
  EXPECT_EQ(folder.out, file.out);

  std::filesystem::create_directories(dir_ / "swim/more");
  Write("swim/a.tsv", "job0\t1\t1\t740773\t2339561\t627471\n");
  Write("swim/more/b.tsv", "job0\t2\t2\t736346\t1700537\t432269\n");
  Write("swim/README", "not a trace\n");
  const Result swim = Run({"trace", "inspect", "swim:" + (dir_ / "swim").string()});
  ASSERT_EQ(swim.exit_code, 0) << swim.err;
  EXPECT_EQ(swim.out, Run({"trace", "inspect", "swim:" + (dir_ / "swim/a.tsv").string() + "," +
                                                  (dir_ / "swim/more/b.tsv").string()}).out);

  std::filesystem::create_directories(dir_ / "empty");
  Write("empty/notes.txt", "nothing\n");
  for (const std::string format : {"alibaba-2017", "alibaba-2018", "tpch-cloudlab", "swim"}) {
    const Result none = Run({"trace", "inspect", format + ":" + (dir_ / "empty").string()});
    ExpectBadInput(none);
    EXPECT_THAT(none.err, HasSubstr("the folder holds no")) << format;
  }
}

}  // namespace
// --users K gives a trace's jobs without a user (SWIM has none) one of K
// users by their name alone: every user used, and a job's user the same
// whatever the sample keeps.
TEST_F(TraceCliTest, UsersMapsJobsWithoutOneByTheirName) {
  std::string rows;
  for (int j = 0; j < 40; ++j) rows += fmt::format("job{}\t{}\t1\t740773\t2339561\t627471\n", j, j);
  const std::string trace = "swim:" + Write("users.tsv", rows);
  const std::string all = (dir_ / "all.json").string(), half = (dir_ / "half.json").string();
  const Result r = Run({"trace", "convert", trace, "--users", "3", "-o", all});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("40 jobs without a user given one by --users"));
  ASSERT_EQ(Run({"trace", "convert", trace, "--users", "3", "--sample", "0.5", "--seed", "9", "-o", half}).exit_code, 0);
  std::map<std::string, std::string> user_of;
  std::set<std::string> users;
  const nlohmann::json converted = nlohmann::json::parse(Slurp(all));
  for (const auto& j : converted["jobs"]) {
    user_of[j["name"]] = j["user"];
    users.insert(j["user"].get<std::string>());
  }
  EXPECT_EQ(users, (std::set<std::string>{"u0", "u1", "u2"}));
  const nlohmann::json kept = nlohmann::json::parse(Slurp(half))["jobs"];
  ASSERT_FALSE(kept.empty());
  for (const auto& j : kept) EXPECT_EQ(j["user"], user_of[j["name"]]) << j["name"];
  // Without --users the trace's jobs keep having no user.
  ASSERT_EQ(Run({"trace", "convert", trace, "-o", all}).exit_code, 0);
  EXPECT_FALSE(nlohmann::json::parse(Slurp(all))["jobs"][0].contains("user"));
}

}  // namespace weft
