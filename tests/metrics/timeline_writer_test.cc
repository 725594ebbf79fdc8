// Tests of Timeline (the binning) and TimelineWriter (timeline.csv): exact
// bin means on hand-made intervals, long intervals through the difference
// array, containers, order independence, and the integral of the allocation
// equal to RunMetrics's utilization.
#include "metrics/timeline_writer.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "gtest/gtest.h"
#include "metrics/run_metrics.h"
#include "tests/metrics/timeline_rows.h"

namespace weft {
namespace {

constexpr TimeUs kS = kUsPerSecond;

Timeline::Rates Cpu(double cores) {
  Timeline::Rates r{};
  r[Timeline::kRunning] = 1;
  r[Timeline::kAlloc + kCpu] = cores;
  return r;
}

TEST(TimelineTest, SplitsIntervalsIntoBins) {
  Timeline t(0, 2 * kS);
  t.Add(kS, 6 * kS, Cpu(2));        // half of bin 0, whole bin 1, whole bin 2
  t.Add(5 * kS / 2, 3 * kS, Cpu(4));  // a quarter of bin 1
  const auto bins = t.Bins(7 * kS);
  ASSERT_EQ(bins.size(), 4u);
  EXPECT_DOUBLE_EQ(bins[0].mean[Timeline::kAlloc + kCpu], 1.0);
  EXPECT_DOUBLE_EQ(bins[1].mean[Timeline::kAlloc + kCpu], 3.0);
  EXPECT_DOUBLE_EQ(bins[1].mean[Timeline::kRunning], 1.25);
  EXPECT_DOUBLE_EQ(bins[2].mean[Timeline::kAlloc + kCpu], 2.0);
  EXPECT_EQ(bins[3].start_us, 6 * kS);
  EXPECT_EQ(bins[3].length_us, kS);  // cut at the end of the run
  EXPECT_DOUBLE_EQ(bins[3].mean[Timeline::kAlloc + kCpu], 0.0);
}

TEST(TimelineTest, ClipsBeforeTheOriginAndIgnoresEmptyIntervals) {
  Timeline t(10 * kS, kS);
  t.Add(8 * kS, 11 * kS, Cpu(1));
  t.Add(12 * kS, 12 * kS, Cpu(5));
  const auto bins = t.Bins(13 * kS);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_DOUBLE_EQ(bins[0].mean[Timeline::kAlloc + kCpu], 1.0);
  EXPECT_DOUBLE_EQ(bins[1].mean[Timeline::kAlloc + kCpu], 0.0);
  EXPECT_TRUE(Timeline(10 * kS, kS).Bins(10 * kS).empty());
}

// A run longer than max_bins steps doubles the step (here twice, 1 s -> 4 s)
// and keeps every integral: what was added before the change too.
TEST(TimelineTest, DoublesTheStepRatherThanKeepTooManyBins) {
  Timeline t(0, kS, 4);
  t.Add(kS, 2 * kS, Cpu(2));   // fits at 1 s
  t.Add(0, 10 * kS, Cpu(1));   // 10 bins of 1 s would be too many
  EXPECT_EQ(t.step_us(), 4 * kS);
  const auto bins = t.Bins(10 * kS);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_DOUBLE_EQ(bins[0].mean[Timeline::kAlloc + kCpu], (2.0 + 4.0) / 4);
  EXPECT_DOUBLE_EQ(bins[1].mean[Timeline::kAlloc + kCpu], 1.0);
  EXPECT_EQ(bins[2].length_us, 2 * kS);
  EXPECT_DOUBLE_EQ(bins[2].mean[Timeline::kAlloc + kCpu], 1.0);
  EXPECT_EQ(t.Bins(100 * kS).size(), 4u);  // the end alone can double it again
  EXPECT_EQ(t.step_us(), 32 * kS);
}

// Jobs a simulated year apart (as the lone-DAG studies space them) cost
// max_bins bins, not one per second.
TEST(TimelineTest, FarApartRecordsStayWithinTheBinBudget) {
  Timeline t(0, kS);
  t.Add(0, kS, Cpu(1));
  t.Add(365 * 86400 * kS, 365 * 86400 * kS + kS, Cpu(1));
  EXPECT_LE(t.Bins(365 * 86400 * kS + kS).size(), Timeline::kMaxBins);
}

// Property: the integral over the bins equals the sum of rate x length,
// whatever the intervals and the order they come in.
TEST(TimelineTest, IntegralIsExactInAnyOrder) {
  std::mt19937_64 rng(7);
  std::vector<std::pair<TimeUs, TimeUs>> intervals;
  long double truth = 0;
  for (int i = 0; i < 500; ++i) {
    const TimeUs s = static_cast<TimeUs>(rng() % (100 * kS));
    const TimeUs e = s + 1 + static_cast<TimeUs>(rng() % (20 * kS));
    intervals.emplace_back(s, e);
    truth += static_cast<long double>(e - s) * 3;
  }
  for (int order = 0; order < 2; ++order) {
    if (order == 1) std::shuffle(intervals.begin(), intervals.end(), rng);
    Timeline t(0, 3 * kS / 2, 16);  // coarsened a few times on the way
    for (const auto& [s, e] : intervals) t.Add(s, e, Cpu(3));
    long double integral = 0;
    for (const Timeline::Bin& b : t.Bins(130 * kS)) {
      integral += static_cast<long double>(b.mean[Timeline::kAlloc + kCpu]) * b.length_us;
    }
    EXPECT_NEAR(static_cast<double>(integral / truth), 1.0, 1e-12) << "order " << order;
  }
}

Workload OneMachine() {
  Workload w;
  w.cluster.AddMachine("m0", RackId(0), *Resources::FromUnits({4, 8, 0, 0}));
  w.users = {"u"};
  Job job;
  job.name = "j";
  job.user = UserId(0);
  Stage s{.name = "s", .num_tasks = 3, .duration_us = kS};
  s.demand = *Resources::FromUnits({1, 2, 0, 0});
  s.usage = *Resources::FromUnits({0.5, 1, 0, 0});
  job.stages = {s};
  job.topo_order = {0};
  job.num_tasks = 3;
  w.jobs.push_back(job);
  return w;
}

// Tasks [0, 3) and [0.5, 1.5) s of 1 cpu, a container of 2 cpu [1, 2.5) s
// whose task [1, 2) s counts as used but not again as allocated; the task
// [0.5, 1.5) was ready at 0. Capacity 4 cpu, step 1 s, makespan 3 s.
TEST(TimelineWriterTest, WritesTheHandCheckedRunAndMatchesRunMetrics) {
  const Workload w = OneMachine();
  const std::string dir = ::testing::TempDir() + "timeline_writer_test";
  std::filesystem::create_directories(dir);
  auto writer = TimelineWriter::Open(dir, w, kS);
  ASSERT_TRUE(writer.ok());
  RunMetrics metrics(w);
  const Resources demand = w.jobs[0].stages[0].demand, usage = w.jobs[0].stages[0].usage;
  const AttemptRecord records[] = {
      {TaskRef{JobId(0), 0, 0}, 0, MachineId(0), 0, 0, 3 * kS, Outcome::kOk, demand, usage, Locality::kNone, false},
      {TaskRef{JobId(0), 0, 1}, 0, MachineId(0), 0, kS / 2, 3 * kS / 2, Outcome::kOk, demand, usage,
       Locality::kNone, false},
      {TaskRef{JobId(0), 0, 2}, 0, MachineId(0), kS, kS, 2 * kS, Outcome::kOk, demand, usage, Locality::kNone, true},
  };
  const ContainerRecord container{JobId(0), MachineId(0), kS, 5 * kS / 2, *Resources::FromUnits({2, 4, 0, 0})};
  for (RunObserver* o : std::initializer_list<RunObserver*>{writer->get(), &metrics}) {
    for (const AttemptRecord& r : records) o->OnAttemptEnd(r);
    o->OnContainerEnd(container);
    o->OnJobEnd(JobRecord{JobId(0), 0, 0, 3 * kS, true});
    o->OnRunEnd(3 * kS);
  }
  ASSERT_TRUE((*writer)->Finish().ok());
  ASSERT_FALSE(std::filesystem::exists(dir + "/timeline.csv.tmp"));
  std::string header;
  std::ifstream in(dir + "/timeline.csv");
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = ReadTimelineRows(text.str(), &header);
  EXPECT_EQ(header,
            "time,running,waiting,cpu_alloc,mem_alloc,disk_alloc,net_alloc,cpu_used,mem_used,disk_used,net_used");
  ASSERT_EQ(rows.size(), 3u);
  // time, running, waiting, cpu_alloc: bin 0 = 1 + 0.5 tasks, 1.5 cpu of 4;
  // bin 1 = 1 + 0.5 + 1 tasks, (1 + 0.5 + 2) cpu; bin 2 = 1 task, 1 + 1 cpu.
  const std::vector<std::vector<double>> expected = {{0, 1.5, 0.5, 1.5 / 4}, {1, 2.5, 0, 3.5 / 4}, {2, 1, 0, 2.0 / 4}};
  for (size_t b = 0; b < 3; ++b) {
    for (size_t c = 0; c < 4; ++c) EXPECT_DOUBLE_EQ(rows[b][c], expected[b][c]) << "bin " << b << " column " << c;
  }
  EXPECT_DOUBLE_EQ(rows[1][7], (0.5 + 0.25 + 0.5) / 4);  // cpu_used: usage counts inside containers
  double integral = 0;
  for (const auto& row : rows) integral += row[3] * 1.0;
  EXPECT_NEAR(integral / 3.0, metrics.summary().utilization[kCpu], 1e-6);
  std::filesystem::remove_all(dir);
}

TEST(TimelineWriterTest, RejectsAMissingDirectoryAndAZeroStep) {
  const Workload w = OneMachine();
  EXPECT_FALSE(TimelineWriter::Open("/nonexistent/dir", w).ok());
  EXPECT_FALSE(TimelineWriter::Open(::testing::TempDir(), w, 0).ok());
}

}  // namespace
}  // namespace weft
