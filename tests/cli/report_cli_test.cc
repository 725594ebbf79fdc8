// End-to-end tests of `weft report`: a self-contained page (Chart.js inlined,
// nothing loaded from elsewhere) whose embedded data matches the runs, the
// sampling of big runs said on the page, and the bad-input contract (exit 2,
// one line naming the file, no report left behind). The page in a real
// browser: report_browser_test.py.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <regex>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_test_util.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReportCliTest : public CliTest {
 protected:
  std::string Sim(const std::string& policy, std::vector<std::string> extra = {}) {
    const std::string out = (dir_ / policy).string();
    std::vector<std::string> args = {"sim", "-w", WEFT_EXAMPLES_DIR "/tpch-small.json", "-p", policy, "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }

  // Data returns the JSON document the page embeds.
  nlohmann::json Data(const std::string& page) {
    const std::string open = R"(<script type="application/json" id="weft-data">)";
    const size_t start = page.find(open);
    EXPECT_NE(start, std::string::npos);
    const size_t end = page.find("</script>", start);
    return nlohmann::json::parse(page.substr(start + open.size(), end - start - open.size()));
  }
};

TEST_F(ReportCliTest, WritesOneSelfContainedPageOfBothRuns) {
  const std::string fifo = Sim("fifo"), fair = Sim("fair", {"--task-failures", "0.1"});
  const std::string out = (dir_ / "report.html").string();
  const Result r = Run({"report", fifo, fair, "-w", WEFT_EXAMPLES_DIR "/tpch-small.json", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("report of 2 run(s)"));
  EXPECT_THAT(r.out, HasSubstr(out));
  const std::string page = Slurp(out);
  EXPECT_THAT(page, HasSubstr("Chart.js v3"));  // inlined from libjs-chart.js
  EXPECT_FALSE(std::regex_search(page, std::regex(R"(<(script|link|img)[^>]+(src|href)=)")))
      << "the page loads something from elsewhere";
  EXPECT_THAT(page, Not(HasSubstr("/*WEFT:")));
  const nlohmann::json data = Data(page);
  ASSERT_EQ(data["runs"].size(), 2u);
  EXPECT_EQ(data["runs"][0]["name"], "fifo");
  EXPECT_EQ(data["runs"][1]["name"], "fair");
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "fair/summary.json"));
  const nlohmann::json& run = data["runs"][1];
  EXPECT_EQ(run["summary"]["avg_jct"], summary["avg_jct"]);
  EXPECT_EQ(run["summary"]["policy"], "fair");
  const nlohmann::json& s = run["series"];
  // One point per job that succeeded, after the step up from 0.
  EXPECT_EQ(s["jct_cdf"]["x"].size(), summary["jobs"].get<size_t>() - summary["jobs_failed"].get<size_t>() + 1);
  EXPECT_DOUBLE_EQ(s["jct_cdf"]["y"].front().get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["jct_cdf"]["y"].back().get<double>(), 1.0);
  EXPECT_EQ(s["slowdown_cdf"]["x"].size(), s["jct_cdf"]["x"].size());
  EXPECT_GE(s["slowdown_cdf"]["x"][0].get<double>(), 1.0);  // JCT >= critical path
  EXPECT_EQ(s["outcomes"]["failed"], summary["attempts_failed"]);
  EXPECT_GT(s["attempts"].size(), 1u);  // retries happened
  EXPECT_EQ(s["users"]["users"].size(), 2u);  // alice and bob
  EXPECT_FALSE(s["timeline"]["t"].empty());
  EXPECT_FALSE(s["gantt"]["bars"].empty());
  EXPECT_TRUE(s["notes"].empty());  // nothing sampled in a small run
}

// A CDF of one job is a step from 0 to 1 at its JCT, which a line chart
// draws; a lone point it would not (the live page's job-time chart stayed
// empty until a second job ended).
TEST_F(ReportCliTest, CdfOfOneJobIsAStepAChartDraws) {
  const std::string path = Write("one.json", R"({"weft": 1,
    "cluster": {"machines": [{"name": "m", "count": 1, "capacity": {"cpu": 1, "mem": 1}}]},
    "jobs": [{"name": "j", "stages": [{"name": "s", "tasks": 1, "duration": 2.5, "demand": {"cpu": 1}}]}]})");
  const std::string run = (dir_ / "one").string();
  ASSERT_EQ(Run({"sim", path, "-p", "fifo", "--out", run}).exit_code, 0);
  const std::string out = (dir_ / "one.html").string();
  ASSERT_EQ(Run({"report", run, "-o", out}).exit_code, 0);
  const nlohmann::json cdf = Data(Slurp(out))["runs"][0]["series"]["jct_cdf"];
  EXPECT_EQ(cdf["x"], nlohmann::json({2.5, 2.5}));
  EXPECT_EQ(cdf["y"], nlohmann::json({0, 1}));
  // Without --workload, the page says how to get slowdowns.
  EXPECT_THAT(Data(Slurp(out))["no_slowdown_note"].get<std::string>(), HasSubstr("--workload W"));
}

// The page's "jct/newlb p50" is the median of jobs.csv's newlb_ratio over the
// jobs that succeeded (a live page once showed 0.02 against 0.77 there).
TEST_F(ReportCliTest, MedianRatioToTheLowerBoundIsJobsCsvs) {
  const std::string run = Sim("fair", {"--task-failures", "0.1"});
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", run, "-o", out}).exit_code, 0);
  std::ifstream jobs(dir_ / "fair/jobs.csv");
  std::string line;
  std::getline(jobs, line);
  ASSERT_EQ(line.rfind("job,user,arrival,start,end,jct,outcome,newlb,newlb_ratio", 0), 0u) << line;
  std::vector<double> ratios;
  while (std::getline(jobs, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 9u) << line;
    if (cells[6] == "ok" && std::stod(cells[8]) > 0) ratios.push_back(std::stod(cells[8]));
  }
  ASSERT_FALSE(ratios.empty());
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios.size() % 2 ? ratios[ratios.size() / 2]
                                          : (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]) / 2;
  EXPECT_NEAR(Data(Slurp(out))["runs"][0]["summary"]["median_job_ratio"].get<double>(), median, 1e-5);
}

TEST_F(ReportCliTest, SaysWhatItSampled) {
  const std::string fifo = Sim("fifo", {"--timeline-step", "0.01"});
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", fifo, "-o", out, "--max-points", "10", "--gantt-machines", "3"}).exit_code, 0);
  const nlohmann::json s = Data(Slurp(out))["runs"][0]["series"];
  EXPECT_LE(s["delay_cdf"]["x"].size(), 11u);  // 10 ranks after the step up from 0
  EXPECT_LE(s["timeline"]["t"].size(), 10u);
  EXPECT_EQ(s["gantt"]["machines"], nlohmann::json({"m0", "m3", "m6"}));
  const std::string notes = s["notes"].dump();
  EXPECT_THAT(notes, HasSubstr("scheduling delay CDF drawn at 10 of"));
  EXPECT_THAT(notes, HasSubstr("Gantt: 3 of 10 machines"));
  EXPECT_THAT(notes, HasSubstr("timeline: means of"));
}

TEST_F(ReportCliTest, GanttWindowKeepsOnlyBarsInside) {
  const std::string fifo = Sim("fifo");
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", fifo, "-o", out, "--gantt-window", "2:4"}).exit_code, 0);
  const nlohmann::json g = Data(Slurp(out))["runs"][0]["series"]["gantt"];
  EXPECT_EQ(g["window"], nlohmann::json({2, 4}));
  ASSERT_FALSE(g["bars"].empty());
  for (const auto& bar : g["bars"]) {
    EXPECT_LT(bar[1].get<double>(), 4.0);
    EXPECT_GE(bar[2].get<double>(), 2.0);
  }
}

TEST_F(ReportCliTest, RunWithoutTimelineStillReports) {
  const std::string fifo = Sim("fifo");
  std::filesystem::remove(dir_ / "fifo/timeline.csv");
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", fifo, "-o", out}).exit_code, 0);
  EXPECT_FALSE(Data(Slurp(out))["runs"][0]["series"].contains("timeline"));
}

TEST_F(ReportCliTest, BadInputNamesTheFileAndWritesNothing) {
  const std::string fifo = Sim("fifo");
  const std::string out = (dir_ / "r.html").string();
  Result r = Run({"report", (dir_ / "nope").string(), "-o", out});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("nope: not a result directory"));

  std::string tasks = Slurp(dir_ / "fifo/tasks.csv");
  Write("fifo/tasks.csv", std::regex_replace(tasks, std::regex("^job,stage,task,attempt,machine"), "job,stage,task,try,machine"));
  r = Run({"report", fifo, "-o", out});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("tasks.csv: no column \"attempt\""));

  Write("fifo/tasks.csv", tasks + "q,s,0,0,m0,1.0,x,3.0,ok,1,1,0,0,none\n");
  r = Run({"report", fifo, "-o", out});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("tasks.csv: line 807, column start: \"x\" is not a number"));

  Write("fifo/tasks.csv", tasks);
  Write("fifo/summary.json", "[1, 2");
  r = Run({"report", fifo, "-o", out});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("summary.json: not a JSON object"));
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));

  ExpectBadInput(Run({"report", fifo, "--gantt-window", "5:1"}));
}

// A sweep directory is read whole, each run labelled by what sets it apart
// (policy, swept parameter values, seed), never by its path.
TEST_F(ReportCliTest, ReadsASweepDirectoryLabellingRunsByTheirParameters) {
  const std::string sweep = (dir_ / "sweep").string();
  const Result s = Run({"sweep", WEFT_EXAMPLES_DIR "/tpch-small.json", "--policies", "fifo,sparrow", "--param",
                        "sparrow:probe_ratio=1.5,3", "--seeds", "1..2", "--out", sweep});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string out = (dir_ / "r.html").string();
  const Result r = Run({"report", sweep, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("report of 6 run(s)"));
  const nlohmann::json data = Data(Slurp(out));
  std::vector<std::string> names, configs;
  for (const auto& run : data["runs"]) {
    names.push_back(run["name"]);
    configs.push_back(run["config"]);
    const auto summary = nlohmann::json::parse(Slurp(std::filesystem::path(run["dir"].get<std::string>()) / "summary.json"));
    EXPECT_EQ(run["summary"]["avg_jct"], summary["avg_jct"]);
    EXPECT_THAT(run["name"].get<std::string>(), HasSubstr(fmt::format("seed {}", summary["seed"].get<int>())));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fifo seed 1", "fifo seed 2", "sparrow probe_ratio=1.5 seed 1",
                                             "sparrow probe_ratio=1.5 seed 2", "sparrow probe_ratio=3 seed 1",
                                             "sparrow probe_ratio=3 seed 2"}));
  EXPECT_EQ(configs[2], "sparrow probe_ratio=1.5");
  EXPECT_EQ(configs[3], configs[2]);  // the seeds of one configuration are averaged together
}

// A compare directory stands for its runs: `weft report DIR` is `weft report DIR/*/`.
TEST_F(ReportCliTest, ReadsACompareDirectory) {
  const std::string cmp = (dir_ / "cmp").string();
  ASSERT_EQ(Run({"compare", WEFT_EXAMPLES_DIR "/tpch-small.json", "--policies", "fifo,fair,cp", "--out", cmp}).exit_code, 0);
  const std::string whole = (dir_ / "whole.html").string(), each = (dir_ / "each.html").string();
  ASSERT_EQ(Run({"report", cmp, "-o", whole}).exit_code, 0);
  ASSERT_EQ(Run({"report", cmp + "/cp", cmp + "/fair", cmp + "/fifo", "-o", each}).exit_code, 0);
  const nlohmann::json a = Data(Slurp(whole)), b = Data(Slurp(each));
  ASSERT_EQ(a["runs"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a["runs"][i]["name"], b["runs"][i]["name"]);
    EXPECT_EQ(a["runs"][i]["summary"], b["runs"][i]["summary"]);
  }
  EXPECT_EQ(a["runs"][0]["name"], "cp");
}

TEST_F(ReportCliTest, BaselineNamesARun) {
  const std::string fifo = Sim("fifo"), fair = Sim("fair");
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", fifo, fair, "-o", out, "--baseline", "fair"}).exit_code, 0);
  EXPECT_EQ(Data(Slurp(out))["baseline"], "fair");
  const Result r = Run({"report", fifo, fair, "-o", out, "--baseline", "drf"});
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("--baseline drf: no run has that name or policy"));
}

// The table's cpu figures are summary.json's held (utilization) and used.
TEST_F(ReportCliTest, SummaryCarriesHeldAndUsedCpuAndWhatThePolicyKnows) {
  const std::string ursa = Sim("ursa");
  const std::string out = (dir_ / "r.html").string();
  ASSERT_EQ(Run({"report", ursa, "-o", out}).exit_code, 0);
  const auto summary = nlohmann::json::parse(Slurp(dir_ / "ursa/summary.json"));
  const nlohmann::json s = Data(Slurp(out))["runs"][0]["summary"];
  EXPECT_EQ(s["cpu_held"], summary["utilization"]["cpu"]);
  EXPECT_EQ(s["cpu_used"], summary["used"]["cpu"]);
  EXPECT_EQ(s["knowledge"], "clairvoyant");
  EXPECT_EQ(s["overbooked"], nlohmann::json({"cpu", "disk", "net"}));
}

}  // namespace
}  // namespace weft
