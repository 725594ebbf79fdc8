// File: tests/sim/mailbox_test.cc
//
// The simulator's mailbox as policies see it: a message's fractional
// payload x arrives exactly as sent, next to its integers and list,
// between any two roles and whatever the latency; a timer can be cancelled
// while it is pending (it then never fires), and only by the role that set
// it; cancelling a timer that has fired, or twice, changes nothing.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "scripted_policy.h"

namespace weft::sim::scripted {
namespace {

using policy::TimerId;

constexpr char kOneJob[] = R"({"weft": 1,
  "cluster": {"machines": [{"name": "m", "count": 2, "capacity": {"cpu": 4, "mem": 4}}]},
  "jobs": [{"name": "j0", "arrival": 1, "stages": [{"name": "a", "tasks": 1, "duration": 2, "demand": {"cpu": 1}}]}]})";

SimOptions WithLatency(TimeUs latency) {
  SimOptions o;
  o.latency_us = latency;
  return o;
}

// One job on two machines; the scheduler runs its tasks with Greedy.
class MailboxTest : public ::testing::Test {
 protected:
  MailboxTest() { greedy.Install(s); }
  const Workload w = Parse(kOneJob);
  Script s;
  Greedy greedy;
};

TEST_F(MailboxTest, FractionalPayloadsArriveExactlyBetweenRoles) {
  s.node_agents = true;
  std::vector<Message> got;
  s.on_job_arrived = [&](Context& ctx, JobId) {
    // One message with everything, one with only x; to itself, a negative zero and a list only.
    ctx.Send(Address::Node(MachineId(1)), Message{.type = 1, .task = TaskRef{JobId(0), 0, 0}, .a = 4, .b = -2,
                                                  .c = 1 << 20, .x = 0.1 + 0.2, .list = {7, 8}});
    ctx.Send(Address::Node(MachineId(0)), Message{.type = 2, .x = -2.75});
    ctx.Send(ctx.self(), Message{.type = 4, .x = -0.0});
    ctx.Send(ctx.self(), Message{.type = 3, .list = {6}});
  };
  s.on_message = [&](Context&, const Address&, const Message& m) { got.push_back(m); };
  s.node_on_message = [&](Context& ctx, MachineId, const Address& from, const Message& m) {
    got.push_back(m);
    ctx.Send(from, Message{.type = m.type + 10, .x = m.x * 2});  // echoed back with a new x
  };
  const RunOutcome r = RunEngine(w, s, WithLatency(Sec(0.001)));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0].type, 4u);  // to itself: no latency
  EXPECT_EQ(got[0].x, 0.0);
  EXPECT_TRUE(std::signbit(got[0].x));  // -0.0 stays -0.0
  EXPECT_EQ(got[1].type, 3u);
  EXPECT_EQ(got[1].list, std::vector<int64_t>{6});
  EXPECT_EQ(got[1].x, 0.0);
  EXPECT_FALSE(std::signbit(got[1].x));
  got.erase(got.begin());
  got.erase(got.begin());
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].type, 1u);
  EXPECT_EQ(got[0].task, (TaskRef{JobId(0), 0, 0}));
  EXPECT_EQ(got[0].a, 4);
  EXPECT_EQ(got[0].b, -2);
  EXPECT_EQ(got[0].c, 1 << 20);
  EXPECT_EQ(got[0].x, 0.1 + 0.2);
  EXPECT_EQ(got[0].list, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(got[1].type, 2u);
  EXPECT_EQ(got[1].x, -2.75);
  EXPECT_TRUE(got[1].list.empty());
  EXPECT_EQ(got[2].type, 11u);
  EXPECT_EQ(got[2].x, 2 * (0.1 + 0.2));
  EXPECT_TRUE(got[2].list.empty());
  EXPECT_EQ(got[3].type, 12u);
  EXPECT_EQ(got[3].x, -5.5);
}

TEST_F(MailboxTest, ACancelledTimerNeverFiresAndTheOthersDo) {
  std::vector<std::pair<uint64_t, TimeUs>> fired;
  std::vector<bool> cancelled;
  TimerId late = TimerId::kNone, soon = TimerId::kNone;
  s.on_job_arrived = [&](Context& ctx, JobId) {
    soon = ctx.SetTimer(Sec(0.5), 1);
    late = ctx.SetTimer(Sec(1.5), 2);  // due at 2.5 s, before the job ends (3 s)
    const TimerId now = ctx.SetTimer(0, 3);
    EXPECT_NE(soon, TimerId::kNone);
    EXPECT_NE(soon, late);
    EXPECT_NE(late, now);
    cancelled.push_back(ctx.CancelTimer(now));  // pending: cancelled
    cancelled.push_back(ctx.CancelTimer(now));  // twice: nothing to cancel
    cancelled.push_back(ctx.CancelTimer(TimerId::kNone));
  };
  s.on_timer = [&](Context& ctx, uint64_t tag) {
    fired.emplace_back(tag, ctx.Now());
    if (tag == 1) {
      cancelled.push_back(ctx.CancelTimer(soon));  // has fired: too late
      cancelled.push_back(ctx.CancelTimer(late));  // pending: cancelled
    }
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(fired, (std::vector<std::pair<uint64_t, TimeUs>>{{1, Sec(1.5)}}));
  EXPECT_EQ(cancelled, (std::vector<bool>{true, false, false, false, true}));
  EXPECT_EQ(r.stats.refused_decisions, 0u);
}

TEST_F(MailboxTest, ARoleCannotCancelAnotherRolesTimer) {
  s.node_agents = true;
  TimerId node_timer = TimerId::kNone;
  bool cancelled_by_scheduler = true;
  std::vector<std::string> fired;
  s.node_on_message = [&](Context& ctx, MachineId, const Address& from, const Message&) {
    node_timer = ctx.SetTimer(Sec(1), 9);
    ctx.Send(from, Message{.type = 1});
  };
  s.on_job_arrived = [&](Context& ctx, JobId) { ctx.Send(Address::Node(MachineId(0)), Message{}); };
  s.on_message = [&](Context& ctx, const Address&, const Message&) {
    cancelled_by_scheduler = ctx.CancelTimer(node_timer);
  };
  s.node_on_timer = [&](Context& ctx, MachineId m, uint64_t tag) {
    fired.push_back(fmt::format("node {} timer {} at {}", m.value(), tag, ctx.Now()));
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_FALSE(cancelled_by_scheduler);
  EXPECT_EQ(fired, std::vector<std::string>{fmt::format("node 0 timer 9 at {}", Sec(2))});
}

TEST_F(MailboxTest, ATimerSlotReusedByANewTimerIsNotCancelledByTheOldId) {
  // Timers fire one after another, so each new timer may take the slot of
  // the last one: the old id must not reach the new timer.
  TimerId previous = TimerId::kNone;
  std::vector<uint64_t> fired;
  std::vector<bool> cancelled;
  s.on_job_arrived = [&](Context& ctx, JobId) { previous = ctx.SetTimer(Sec(0.1), 1); };
  s.on_timer = [&](Context& ctx, uint64_t tag) {
    fired.push_back(tag);
    if (tag < 4) {
      const TimerId next = ctx.SetTimer(Sec(0.1), tag + 1);
      cancelled.push_back(ctx.CancelTimer(previous));
      previous = next;
    }
  };
  const RunOutcome r = RunEngine(w, s);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(fired, (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(cancelled, (std::vector<bool>{false, false, false}));
}

}  // namespace
}  // namespace weft::sim::scripted
