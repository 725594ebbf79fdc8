// The ras policy in the engine: the Task Scheduler's move from one placement
// to the next happens as tasks end and never over-commits a machine (the
// schedule checker refuses any excess: ras overbooks nothing), and each
// cycle records every job's utility (series.csv's "utility").
#include <string>
#include <vector>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"
#include "policy/ras/utility.h"

namespace weft::policy {
namespace {

using testing::Sec;

// One machine of 2 cores. B arrives at 0 with 8 maps of 0.5 core and 10 s
// and fills the machine; A arrives at 1 with 4 maps of 1 core and 10 s. Both
// goals are relaxed (s_req = 1).
constexpr char kTransition[] = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 2, "mem": 8}}]},
  "jobs": [
    {"name": "B", "deadline": 100000, "stages": [
      {"name": "map", "tasks": 8, "duration": 10, "demand": {"cpu": 0.5, "mem": 1}}]},
    {"name": "A", "arrival": 1, "deadline": 100000, "stages": [
      {"name": "map", "tasks": 4, "duration": 10, "demand": {"cpu": 1, "mem": 1}}]}
  ]})";

class SeriesRecorder final : public RunObserver {
 public:
  struct Point {
    TimeUs time;
    std::string series;
    JobId job;
    double value;
  };
  void OnSeries(const SeriesPoint& p) override { points.push_back({p.time_us, std::string(p.series), p.job, p.value}); }
  std::vector<Point> points;
};

TEST(RasPolicyTest, MovesToTheNewPlacementOnlyAsTasksEnd) {
  const auto run = testing::RunPolicy(kTransition, "ras");
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);  // includes: no machine over-committed
  // At 1 s the cycle moves two of B's four slots to A (u_B 3/7 -> 1/7, A
  // from kNoMapSlot to 0), but B's tasks hold both cores: A waits for them.
  int b_at_half = 0;
  for (const AttemptRecord& r : run.attempts) b_at_half += r.start_us <= Sec(0.5) && Sec(0.5) < r.end_us;
  EXPECT_EQ(b_at_half, 4);
  EXPECT_EQ(run.FirstStart("A"), Sec(10));
  // At 10 s B's four tasks end together: A's task and two of B's start.
  int a_at_10 = 0, b_at_10 = 0;
  for (const AttemptRecord& r : run.attempts) {
    if (r.start_us != Sec(10)) continue;
    (run.workload.jobs[r.task.job.value()].name == "A" ? a_at_10 : b_at_10)++;
  }
  EXPECT_EQ(a_at_10, 1);
  EXPECT_EQ(b_at_10, 2);
}

TEST(RasPolicyTest, RecordsEachJobsUtilityEveryCycle) {
  auto workload = ParseWorkload(kTransition);
  ASSERT_TRUE(workload.ok());
  auto built = BuildPolicy("ras", {"period=5"});
  ASSERT_TRUE(built.ok());
  sim::Engine engine(*workload, *built->policy, {});
  SeriesRecorder series;
  engine.AddObserver(&series);
  ASSERT_TRUE(engine.Run().ok());
  ASSERT_FALSE(series.points.empty());
  // The first cycle, at 0: B alone, all 4 slots it can hold: (4-1)/(8-1).
  EXPECT_EQ(series.points[0].time, 0);
  EXPECT_EQ(series.points[0].series, "utility");
  EXPECT_EQ(series.points[0].job, JobId(0));
  EXPECT_NEAR(series.points[0].value, 3.0 / 7, 1e-12);
  // A's first value, at its arrival (1 s): one slot of 1 core next to B's
  // two, u_A = (1-1)/(4-1) = 0.
  bool saw_a = false;
  for (const auto& p : series.points) {
    if (p.job == JobId(1)) {
      EXPECT_EQ(p.time, Sec(1));
      EXPECT_DOUBLE_EQ(p.value, 0.0);
      saw_a = true;
      break;
    }
  }
  EXPECT_TRUE(saw_a);
  // Cycles every 5 s while jobs run, none after the last one ends.
  for (const auto& p : series.points) EXPECT_LE(p.time, Sec(40));
}

}  // namespace
}  // namespace weft::policy
