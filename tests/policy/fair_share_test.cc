// Tests for policy/common/fair_share: the share functions, FairShareBook's
// accounting and ordering, and the conformance of every policy built on
// FairShareScheduler (fair, drf, delay): complete, checker-valid and
// deterministic schedules in both execution models, with and without latency.
#include "policy/common/fair_share.h"

#include <string>
#include <tuple>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"

namespace weft::policy {
namespace {

Resources R(double cpu, double mem, double disk = 0, double net = 0) {
  return *Resources::FromUnits({cpu, mem, disk, net});
}

GroupId G(uint32_t job, uint32_t stage = 0) { return GroupId{JobId(job), stage}; }

FairShareBook CpuBook() { return FairShareBook(CpuShare); }

TEST(ShareTest, CpuShareIsCoresOverWeight) {
  EXPECT_DOUBLE_EQ(CpuShare(R(3, 100), 1), 3.0);
  EXPECT_DOUBLE_EQ(CpuShare(R(3, 100), 3), 1.0);
  EXPECT_DOUBLE_EQ(CpuShare(R(0, 100), 1), 0.0);
}

TEST(ShareTest, DominantShareIsLargestFractionOverWeight) {
  const Resources capacity = R(9, 18);  // DRF paper's cluster; no disk or net
  EXPECT_DOUBLE_EQ(DominantShare(R(1, 4), capacity, 1), 4.0 / 18);  // memory dominates
  EXPECT_DOUBLE_EQ(DominantShare(R(3, 1), capacity, 1), 3.0 / 9);   // cpu dominates
  EXPECT_DOUBLE_EQ(DominantShare(R(3, 1), capacity, 2), 3.0 / 18);
  // A resource the cluster does not have cannot dominate (no division by 0).
  EXPECT_DOUBLE_EQ(DominantShare(R(0, 0, 5), capacity, 1), 0.0);
}

TEST(FairShareBookTest, ChargeAndRefundMoveAllocationAndShare) {
  FairShareBook book = CpuBook();
  const UserId u(0);
  book.AddJob(u, JobId(0), 1);
  book.Charge(u, R(2, 4));
  book.Charge(u, R(1, 1));
  EXPECT_EQ(book.allocated(u), R(3, 5));
  EXPECT_DOUBLE_EQ(book.share(u), 3.0);
  book.Refund(u, R(2, 4));
  EXPECT_EQ(book.allocated(u), R(1, 1));
  EXPECT_DOUBLE_EQ(book.share(u), 1.0);
  book.Refund(u, R(1, 1));
  EXPECT_TRUE(book.allocated(u).IsZero());
  EXPECT_TRUE(book.allocated(UserId(7)).IsZero());  // never seen: nothing
}

TEST(FairShareBookTest, WeightIsLargestWeightOfActiveJobs) {
  FairShareBook book = CpuBook();
  const UserId u(0);
  EXPECT_DOUBLE_EQ(book.weight(u), 1.0);  // no job: weight 1
  book.AddJob(u, JobId(0), 0.5);
  EXPECT_DOUBLE_EQ(book.weight(u), 0.5);
  book.AddJob(u, JobId(1), 3);
  book.AddJob(u, JobId(2), 3);
  book.AddJob(u, JobId(1), 3);  // idempotent
  EXPECT_DOUBLE_EQ(book.weight(u), 3.0);
  book.Charge(u, R(6, 0));
  EXPECT_DOUBLE_EQ(book.share(u), 2.0);
  book.RemoveJob(u, JobId(1));
  EXPECT_DOUBLE_EQ(book.weight(u), 3.0);  // job 2 still weighs 3
  book.RemoveJob(u, JobId(2));
  EXPECT_DOUBLE_EQ(book.weight(u), 0.5);
  EXPECT_DOUBLE_EQ(book.share(u), 12.0);  // the share follows the weight
}

TEST(FairShareBookTest, NeedyHoldsUsersWithGroupsLowestShareFirst) {
  FairShareBook book = CpuBook();
  const UserId a(0), b(1), c(2);
  for (uint32_t u = 0; u < 3; ++u) book.AddJob(UserId(u), JobId(u), 1);
  book.Charge(a, R(2, 0));
  book.Charge(b, R(1, 0));
  book.Charge(c, R(5, 0));
  EXPECT_TRUE(book.needy().empty());  // nobody has ready tasks yet
  book.AddGroup(a, G(0), {0, 0, 0});
  book.AddGroup(b, G(1), {0, 0, 1});
  ASSERT_EQ(book.needy().size(), 2u);
  EXPECT_EQ(book.needy().begin()->second, b.value());  // share 1 < 2
  book.Charge(b, R(2, 0));  // b now holds 3: a is needier
  EXPECT_EQ(book.needy().begin()->second, a.value());
  book.Refund(b, R(1, 0));  // 2 each: the tie goes to the lower user id
  EXPECT_EQ(book.needy().begin()->second, a.value());
  book.DropGroup(a, G(0));
  ASSERT_EQ(book.needy().size(), 1u);
  EXPECT_EQ(book.needy().begin()->second, b.value());
  book.DropGroup(b, G(1));
  EXPECT_TRUE(book.needy().empty());
}

TEST(FairShareBookTest, GroupsAreInKeyOrderAndAddIsIdempotent) {
  FairShareBook book = CpuBook();
  const UserId u(0);
  book.AddJob(u, JobId(0), 1);
  book.AddJob(u, JobId(1), 1);
  book.AddGroup(u, G(1, 0), {0, 5, 0});
  book.AddGroup(u, G(0, 1), {0, 2, 1});
  book.AddGroup(u, G(0, 0), {0, 2, 0});
  book.AddGroup(u, G(0, 0), {9, 9, 9});  // already there: keeps its key
  std::vector<GroupId> order;
  for (const auto& [key, g] : book.groups(u)) order.push_back(g);
  EXPECT_EQ(order, (std::vector<GroupId>{G(0, 0), G(0, 1), G(1, 0)}));
  EXPECT_EQ(book.needy().size(), 1u);
}

TEST(FairShareBookTest, RemoveJobDropsItsGroupsButKeepsAllocation) {
  FairShareBook book = CpuBook();
  const UserId u(0);
  book.AddJob(u, JobId(0), 1);
  book.AddJob(u, JobId(1), 1);
  book.AddGroup(u, G(0, 0), {0, 0, 0});
  book.AddGroup(u, G(0, 1), {0, 0, 1});
  book.AddGroup(u, G(1, 0), {0, 1, 0});
  book.Charge(u, R(2, 0));
  book.RemoveJob(u, JobId(0));
  ASSERT_EQ(book.groups(u).size(), 1u);
  EXPECT_EQ(book.groups(u).begin()->second, G(1, 0));
  // Attempts still running are refunded when they end, not when the job goes.
  EXPECT_EQ(book.allocated(u), R(2, 0));
  book.RemoveJob(u, JobId(1));
  EXPECT_TRUE(book.needy().empty());
}

// Two users, pipelined and barrier edges, locality preferences (some tasks
// without), a large task and a late arrival: enough to exercise every path
// of the three policies.
constexpr std::string_view kMixedWorkload = R"({
  "weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 4, "rack_size": 2, "capacity": {"cpu": 4, "mem": 8}}]},
  "jobs": [
    {"name": "j0", "user": "a", "weight": 2, "stages": [
      {"name": "scan", "tasks": 6, "duration": 1.5, "demand": {"cpu": 1, "mem": 2},
       "locality": [["m0"], ["m0"], ["m1", "m2"], ["m3"], []]},
      {"name": "map", "tasks": 6, "duration": 0.7, "demand": {"cpu": 1, "mem": 1},
       "after": [{"stage": "scan", "kind": "pipelined"}]},
      {"name": "agg", "tasks": 2, "duration": 2, "demand": {"cpu": 4, "mem": 2}, "after": ["map"]}]},
    {"name": "j1", "user": "b", "arrival": 0.3, "stages": [
      {"name": "scan", "tasks": 9, "duration": 1, "demand": {"cpu": 2, "mem": 1},
       "locality": [["m1"], ["m1"], ["m1"], ["m1"], ["m1"], ["m1"], ["m1"], ["m1"], ["m1"]]}]},
    {"name": "j2", "user": "a", "arrival": 1.1, "stages": [
      {"name": "s", "tasks": 5, "duration": 0.4, "demand": {"cpu": 1, "mem": 6}}]}
  ]
})";

using ConformanceParam = std::tuple<std::string, sim::ExecutionModel, double>;

class FairShareConformanceTest : public ::testing::TestWithParam<ConformanceParam> {};

TEST_P(FairShareConformanceTest, CompletesValidDeterministicSchedules) {
  const auto& [policy, model, latency] = GetParam();
  sim::SimOptions options;
  options.model = model;
  options.latency_us = testing::Sec(latency);
  const testing::Run first = testing::RunPolicy(kMixedWorkload, policy, {}, options);
  ASSERT_TRUE(first.status.ok()) << StatusMessage(first.status);
  EXPECT_EQ(first.attempts.size(), 6u + 6u + 2u + 9u + 5u);
  const testing::Run second = testing::RunPolicy(kMixedWorkload, policy, {}, options);
  ASSERT_EQ(first.attempts.size(), second.attempts.size());
  for (size_t i = 0; i < first.attempts.size(); ++i) {
    EXPECT_EQ(first.attempts[i].task, second.attempts[i].task);
    EXPECT_EQ(first.attempts[i].machine, second.attempts[i].machine);
    EXPECT_EQ(first.attempts[i].start_us, second.attempts[i].start_us);
  }
}

TEST_P(FairShareConformanceTest, SurvivesTaskAndMachineFailures) {
  const auto& [policy, model, latency] = GetParam();
  sim::SimOptions options;
  options.model = model;
  options.latency_us = testing::Sec(latency);
  options.task_failure_prob = 0.2;
  options.max_attempts = 20;
  options.failures = {{MachineId(1), testing::Sec(0.5), testing::Sec(3)}};
  const testing::Run run = testing::RunPolicy(kMixedWorkload, policy, {}, options);
  ASSERT_TRUE(run.status.ok()) << StatusMessage(run.status);
  EXPECT_GT(run.attempts.size(), 28u);  // some attempts failed or were lost, and were retried
}

INSTANTIATE_TEST_SUITE_P(
    Policies, FairShareConformanceTest,
    ::testing::Combine(::testing::Values("fair", "drf", "delay"),
                       ::testing::Values(sim::ExecutionModel::kFixed, sim::ExecutionModel::kContention),
                       ::testing::Values(0.0, 0.01)),
    [](const ::testing::TestParamInfo<ConformanceParam>& info) {
      return std::get<0>(info.param) + "_" + sim::ExecutionModelName(std::get<1>(info.param)) +
             (std::get<2>(info.param) > 0 ? "_latency" : "");
    });

}  // namespace
}  // namespace weft::policy
