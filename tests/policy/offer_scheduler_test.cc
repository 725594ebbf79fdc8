// File: tests/policy/offer_scheduler_test.cc
//
// OfferScheduler's rounds, on hand-computed schedules: decisions wait for
// everything that happens at one instant, so a child released by a task's end
// is ranked against the groups already waiting before the freed machine is
// given away (the engine notifies the end first, then the child); the key
// decides in both directions; a fresh group takes room anywhere, leaving the
// freed machine to a waiting group that fits only there; and a subclass's own
// timers still reach it. The schedulers are RankedScheduler with a fixed rank
// per stage, run with the schedule checker attached.
#include "policy/common/offer_scheduler.h"

#include <memory>
#include <utility>
#include <vector>

#include "fair_share_test_util.h"
#include "gtest/gtest.h"
#include "policy/common/ranked_scheduler.h"

namespace weft::policy::testing {
namespace {

// StageRanks: a policy whose scheduler orders groups by a fixed rank per
// stage index (the same for every job), ties FIFO.
class StageRanks final : public Policy {
 public:
  explicit StageRanks(std::vector<int64_t> ranks) : ranks_(std::move(ranks)) {}
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<RankedScheduler>(ctx, [ranks = ranks_](const JobView&) { return ranks; });
  }

 private:
  std::vector<int64_t> ranks_;
};

// One single-core machine. p and w are roots, c follows p; all take 1 s.
// p runs [0, 1]; at 1 its end frees the machine and releases c, while w has
// been waiting since 0.
constexpr char kRelease[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "capacity": {"cpu": 1, "mem": 1}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "p", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
    {"name": "w", "tasks": 1, "duration": 1, "demand": {"cpu": 1}},
    {"name": "c", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["p"]}]}]})";

TEST(OfferSchedulerTest, ReleasedChildRankedAboveAWaitingGroupGetsTheFreedSlot) {
  StageRanks policy({0, 2, 1});  // p, then c, then w
  const auto run = RunPolicyObject(kRelease, policy);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Task("j", 0, 0).start_us, 0);       // p
  EXPECT_EQ(run.Task("j", 0, 2).start_us, Sec(1));  // c: released at 1, takes p's slot
  EXPECT_EQ(run.Task("j", 0, 1).start_us, Sec(2));  // w
}

TEST(OfferSchedulerTest, WaitingGroupRankedAboveTheReleasedChildKeepsTheFreedSlot) {
  StageRanks policy({0, 1, 2});  // p, then w, then c
  const auto run = RunPolicyObject(kRelease, policy);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Task("j", 0, 1).start_us, Sec(1));  // w
  EXPECT_EQ(run.Task("j", 0, 2).start_us, Sec(2));  // c
}

TEST(OfferSchedulerTest, SameInstantOrderingHoldsWithLatency) {
  // With 0.1 s latency every notification and launch takes 0.1 s: the ready
  // tasks reach the scheduler at 0.1, p runs [0.2, 1.2]; its end and c's
  // release reach the scheduler together at 1.3, c runs [1.4, 2.4]; w's
  // turn comes with c's end, at 2.5, and it starts at 2.6.
  StageRanks policy({0, 2, 1});
  sim::SimOptions options;
  options.latency_us = Sec(0.1);
  const auto run = RunPolicyObject(kRelease, policy, options);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Task("j", 0, 0).start_us, Sec(0.2));
  EXPECT_EQ(run.Task("j", 0, 2).start_us, Sec(1.4));
  EXPECT_EQ(run.Task("j", 0, 1).start_us, Sec(2.6));
}

// m0 has 1 core, m1 2 cores. x (2 cores) can only run on m1 and runs [0, 1];
// big (2 cores) waits for m1. At 1 x's end frees m1 and releases small
// (1 core), ranked above big. Served in key order, small is placed first fit
// on m0, which it fits, and big then takes the freed m1; had the freed
// machine simply gone to the best-ranked group, small would sit on m1 and
// big would wait until 2.
constexpr char kLeftoverRoom[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m0", "capacity": {"cpu": 1, "mem": 4}},
                           {"name": "m1", "capacity": {"cpu": 2, "mem": 4}}]},
  "jobs": [{"name": "j", "stages": [
    {"name": "x", "tasks": 1, "duration": 1, "demand": {"cpu": 2}},
    {"name": "big", "tasks": 1, "duration": 1, "demand": {"cpu": 2}},
    {"name": "small", "tasks": 1, "duration": 1, "demand": {"cpu": 1}, "after": ["x"]}]}]})";

TEST(OfferSchedulerTest, FreshGroupTakesRoomAnywhereAndLeavesTheFreedMachineToAWaitingGroup) {
  StageRanks policy({0, 2, 1});
  const auto run = RunPolicyObject(kLeftoverRoom, policy);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.Task("j", 0, 0).machine, MachineId(1));  // x
  EXPECT_EQ(run.Task("j", 0, 2).start_us, Sec(1));       // small
  EXPECT_EQ(run.Task("j", 0, 2).machine, MachineId(0));
  EXPECT_EQ(run.Task("j", 0, 1).start_us, Sec(1));  // big
  EXPECT_EQ(run.Task("j", 0, 1).machine, MachineId(1));
}

// TimedFifo: a scheduler with a timer of its own (tag 7 at 0.5 s after each
// arrival), to show that only the round's tag is kept by the base class.
class TimedFifo final : public OfferScheduler {
 public:
  TimedFifo(Context& ctx, std::vector<uint64_t>& tags) : OfferScheduler(ctx), tags_(tags) {}
  void OnJobArrived(JobId /*job*/) override { ctx_.SetTimer(Sec(0.5), 7); }

 protected:
  OrderKey KeyFor(const GroupId& g) override { return FifoKey(ctx_.job(g.job), g.stage); }
  void OnPolicyTimer(uint64_t tag) override { tags_.push_back(tag); }

 private:
  std::vector<uint64_t>& tags_;
};

class TimedFifoPolicy final : public Policy {
 public:
  Knowledge knowledge() const override { return Knowledge::kNonClairvoyant; }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<TimedFifo>(ctx, tags);
  }
  std::vector<uint64_t> tags;
};

TEST(OfferSchedulerTest, SubclassTimersAreForwardedAndRoundsAreNot) {
  TimedFifoPolicy policy;
  const auto run = RunPolicyObject(kRelease, policy);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.attempts.size(), 3u);
  EXPECT_EQ(policy.tags, (std::vector<uint64_t>{7}));
  // fifo: p [0, 1], w [1, 2] (lower stage index than c), c [2, 3].
  EXPECT_EQ(run.Task("j", 0, 1).start_us, Sec(1));
  EXPECT_EQ(run.Task("j", 0, 2).start_us, Sec(2));
}

}  // namespace
}  // namespace weft::policy::testing
