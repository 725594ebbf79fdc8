// File: tests/trace/trace_stats_test.cc
//
// The data-quality report's distributions: exact quantiles of weighted
// values against the values written out one by one, and the report of a
// trace read job by job (TraceStatsSink) against the same figures over the
// whole workload read into memory.
#include "trace/trace_stats.h"

#include <algorithm>
#include <random>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tests/trace/trace_test_util.h"
#include "trace/trace_formats.h"

namespace weft {
namespace {

// Reference: every value repeated `weight` times, sorted; the value at rank
// q (n - 1), rounded down.
std::string NaiveLine(std::vector<double> all) {
  if (all.empty()) return "none";
  std::sort(all.begin(), all.end());
  const auto at = [&](double q) { return all[static_cast<size_t>(q * static_cast<double>(all.size() - 1))]; };
  return fmt::format("p50 {:.6g}, p90 {:.6g}, p99 {:.6g}, max {:.6g}", at(0.5), at(0.9), at(0.99), all.back());
}

TEST(QuantilesTest, WeightedValuesGiveTheQuantilesOfTheValuesWrittenOut) {
  std::mt19937_64 random(11);
  for (int round = 0; round < 300; ++round) {
    Quantiles q;
    std::vector<double> all;
    const int n = static_cast<int>(random() % 60);
    for (int k = 0; k < n; ++k) {
      // Few distinct values, so that weighted and single ones tie.
      const double value = static_cast<double>(random() % 20) / 4;
      const uint64_t weight = random() % 3 == 0 ? random() % 5 : 1;  // 0 counts nothing
      q.Add(value, weight);
      all.insert(all.end(), weight, value);
    }
    EXPECT_EQ(q.Line(), NaiveLine(all)) << "round " << round;
  }
}

class TraceStatsTest : public testutil::TraceFixture {};

TEST_F(TraceStatsTest, JobByJobGivesTheFiguresOfTheWholeWorkload) {
  // Google 2011 rows: jobs of tasks that differ in duration (a duration per
  // task) and in demand (two stages).
  std::string rows;
  for (int job = 1; job <= 30; ++job) {
    const int64_t submit = int64_t{job} * 1000000;
    for (int task = 0; task < job % 5 + 1; ++task) {
      const std::string cpu = task % 2 == 0 ? "0.5" : "0.25";
      const auto event = [&](int64_t time, int type) {
        return fmt::format("{},,{},{},7,{},u,0,2,{},0.1,0.001,0\n", time, job, task, type, cpu);
      };
      rows += event(submit, 0) + event(submit + 1, 1);
      rows += event(submit + 1 + 1000 * (task + 1) * job, 4);
    }
  }
  // Rows in time order, as the format requires.
  std::vector<std::string> lines;
  for (size_t at = 0; at < rows.size();) {
    const size_t end = rows.find('\n', at) + 1;
    lines.push_back(rows.substr(at, end - at));
    at = end;
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
  std::string ordered;
  for (const std::string& l : lines) ordered += l;
  WriteGz("s/task_events/part-00000-of-00001.csv.gz", ordered);
  const TraceSpec spec = *ParseTraceSpec("google-2011:" + Path("s"));

  TraceReport whole_report;
  const absl::StatusOr<Workload> whole = ReadTraceWorkload(spec, TraceOptions{}, whole_report);
  ASSERT_TRUE(whole.ok()) << whole.status();
  WorkloadStats expected;
  for (const Job& job : whole->jobs) expected.Add(job);

  TraceReport report;
  TraceStatsSink sink;
  ASSERT_TRUE(ReadTrace(spec, TraceOptions{}, sink, report).ok());
  const std::vector<std::string> got = sink.Lines();
  EXPECT_EQ(got, expected.Lines(whole->cluster.size()));
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[0], "workload: 30 jobs, 54 stages, 90 tasks on 12583 machines");
  EXPECT_EQ(report.Lines(), whole_report.Lines());
}

}  // namespace
}  // namespace weft
