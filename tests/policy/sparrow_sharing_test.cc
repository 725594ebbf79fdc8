// File: tests/policy/sparrow_sharing_test.cc
//
// Sparrow's node-side queues (§4.2) shown on small versions of the paper's
// §7.5-7.6 experiments (full size: docs/reproductions/sparrow.md): a
// high-priority user keeps near-ideal response times under a low-priority
// overload with queue=priority but not with fifo; with queue=fair two
// backlogged users split the slots by their weights, which fifo does not.
// Also the weighted max-min shares those experiments compare against.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sparrow_test_util.h"
#include "trace/sparrow_workload.h"

namespace weft::policy::testing {
namespace {

// Median response time per user (0 and 1).
std::vector<double> MedianPerUser(const Workload& w, const std::vector<JobRecord>& jobs) {
  std::vector<std::vector<JobRecord>> per_user(2);
  for (const JobRecord& j : jobs) per_user[w.jobs[j.job.value()].user.value()].push_back(j);
  return {MedianResponseUs(per_user[0]), MedianResponseUs(per_user[1])};
}

// Slot time each user's tasks held in [from_us, to_us).
std::vector<double> BusyPerUser(const Workload& w, const std::vector<AttemptRecord>& attempts, TimeUs from_us,
                                TimeUs to_us) {
  std::vector<double> busy(2, 0);
  for (const AttemptRecord& a : attempts) {
    const TimeUs s = std::max(a.start_us, from_us), e = std::min(a.end_us, to_us);
    if (e > s) busy[w.jobs[a.task.job.value()].user.value()] += static_cast<double>(e - s);
  }
  return busy;
}

// RunWithQueue runs late-binding Sparrow with node queues `queue` and 0.5 ms
// one-way latency, checked.
WorkloadRun RunWithQueue(const Workload& w, const std::string& queue) {
  sim::SimOptions o;
  o.latency_us = 500;
  WorkloadRun r;
  RunOnWorkload(w, "sparrow", {"queue=" + queue}, o, r);
  EXPECT_TRUE(r.status.ok()) << queue << ": " << r.status;
  return r;
}

// 80 slots, 10-task jobs of 100 ms: user 0 (priority 1) offers a quarter of
// the cluster, user 1 (priority 0) all of it, for 10 s.
TEST(SparrowSharingTest, PriorityQueuesShieldTheHighPriorityUserFromOverload) {
  SparrowUsersSpec spec{.machines = 20, .cores = 4, .tasks_per_job = 10};
  spec.users = {{.priority = 1, .steps = {{10, 0.25}}}, {.priority = 0, .steps = {{10, 1.0}}}};
  const Workload w = BuildSparrowUsersWorkload(spec);
  const std::vector<double> p = MedianPerUser(w, RunWithQueue(w, "priority").jobs);
  const std::vector<double> f = MedianPerUser(w, RunWithQueue(w, "fifo").jobs);
  // Ideal: 100 ms plus two round trips. Without preemption a high-priority
  // task may wait for a running low-priority one (at most 100 ms).
  EXPECT_LT(p[0], 200'000) << "high-priority median with priority queues";
  EXPECT_LT(p[0], 0.25 * p[1]) << "low-priority median " << p[1];
  EXPECT_GT(f[0], 3 * p[0]) << "fifo gives the high-priority user no protection";
}

// 100 slots, weights 1:2, both users offering the whole cluster once user 1
// starts at 2 s; shares measured over [4 s, 10 s).
TEST(SparrowSharingTest, FairQueuesSplitTheClusterByWeight) {
  SparrowUsersSpec spec{.machines = 25, .cores = 4, .tasks_per_job = 10};
  spec.users = {{.weight = 1, .steps = {{12, 1.0}}}, {.weight = 2, .steps = {{2, 0}, {12, 1.0}}}};
  const Workload w = BuildSparrowUsersWorkload(spec);
  const std::vector<double> a = BusyPerUser(w, RunWithQueue(w, "fair").attempts, 4'000'000, 10'000'000);
  const std::vector<double> b = BusyPerUser(w, RunWithQueue(w, "fifo").attempts, 4'000'000, 10'000'000);
  const double slot_us = 100 * 6e6;
  EXPECT_GT((a[0] + a[1]) / slot_us, 0.9) << "the cluster stays busy";
  EXPECT_NEAR(a[1] / (a[0] + a[1]), 2.0 / 3, 0.04) << "user 1's part of what ran, due 2/3";
  EXPECT_LT(b[1] / (b[0] + b[1]), 0.6) << "fifo does not weight the users";
}

TEST(SparrowSharingTest, WeightedMaxMinSharesFillByWeight) {
  EXPECT_EQ(WeightedMaxMinShares({50, 300}, {1, 1}, 200), (std::vector<double>{50, 150}));
  EXPECT_EQ(WeightedMaxMinShares({300, 300}, {1, 3}, 200), (std::vector<double>{50, 150}));
  EXPECT_EQ(WeightedMaxMinShares({10, 20}, {1, 1}, 200), (std::vector<double>{10, 20}));
  EXPECT_EQ(WeightedMaxMinShares({0, 400}, {1, 1}, 400), (std::vector<double>{0, 400}));
  const std::vector<double> three = WeightedMaxMinShares({100, 100, 30}, {1, 2, 1}, 150);
  EXPECT_DOUBLE_EQ(three[2], 30);  // under its part (37.5): gets what it asks
  EXPECT_DOUBLE_EQ(three[0], 40);  // the remaining 120 split 1:2
  EXPECT_DOUBLE_EQ(three[1], 80);
}

}  // namespace
}  // namespace weft::policy::testing
