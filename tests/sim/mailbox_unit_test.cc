// File: tests/sim/mailbox_unit_test.cc
//
// sim::Mailbox through its own API, without an engine: mail reaches the role
// a MailRecipients names, mail to a node agent that died since it was posted
// is dropped (and counted if it was a message), a cancelled timer is dropped
// and its id spent, and with agents hosted on their nodes mail goes out as
// NodeMail only while the agent is up there.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sim/live_engine.h"
#include "sim/mailbox.h"

namespace weft::sim {
namespace {

using policy::Address;
using policy::Message;

// Roles need a Context to be built; these never use it.
class UnusedContext final : public policy::Context {
 public:
  Address self() const override { return {}; }
  TimeUs Now() const override { return 0; }
  Rng& rng() override { return rng_; }
  uint32_t num_schedulers() const override { return 1; }
  const policy::ClusterState& cluster() const override { std::abort(); }
  policy::JobView job(JobId) const override { std::abort(); }
  std::span<const JobId> active_jobs() const override { return {}; }
  const policy::ContainerInfo* container(ContainerId) const override { return nullptr; }
  void Send(const Address&, Message) override {}
  policy::TimerId SetTimer(TimeUs, uint64_t) override { return policy::TimerId::kNone; }
  bool CancelTimer(policy::TimerId) override { return false; }
  absl::Status Launch(const TaskRef&, MachineId) override { return absl::OkStatus(); }
  absl::Status LaunchInContainer(const TaskRef&, ContainerId) override { return absl::OkStatus(); }
  absl::Status Kill(const TaskRef&) override { return absl::OkStatus(); }
  absl::StatusOr<ContainerId> GrantContainer(JobId, MachineId, const Resources&) override { return ContainerId(); }
  absl::Status ReleaseContainer(ContainerId) override { return absl::OkStatus(); }
  absl::Status StartPhase(const TaskRef&) override { return absl::OkStatus(); }

 private:
  Rng rng_{1};
};

struct Agent final : policy::NodeAgent {
  Agent(policy::Context& ctx, MachineId m, std::vector<std::string>& log) : NodeAgent(ctx, m), log_(log) {}
  void OnMessage(const Address&, const Message& m) override {
    log_.push_back("node " + std::to_string(machine().value()) + " message " + std::to_string(m.type));
  }
  void OnTimer(uint64_t tag) override {
    log_.push_back("node " + std::to_string(machine().value()) + " timer " + std::to_string(tag));
  }
  std::vector<std::string>& log_;
};

// Two machines with agents; hosted on the nodes when `elsewhere`.
struct Recipients final : MailRecipients {
  UnusedContext ctx;
  std::vector<std::string> log;
  Agent a0{ctx, MachineId(0), log}, a1{ctx, MachineId(1), log};
  bool elsewhere = false;
  std::vector<bool> up_elsewhere = {true, true};
  std::vector<NodeMail> forwarded;

  policy::Role* FindRole(const Address& to) override {
    if (to.kind != policy::RoleKind::kNode) return nullptr;
    return to.index == 0 ? static_cast<policy::Role*>(&a0) : &a1;
  }
  bool NodesElsewhere() const override { return elsewhere; }
  bool NodeUpElsewhere(uint32_t m) const override { return up_elsewhere[m]; }
  void ToNode(MachineId, const NodeMail& mail) override { forwarded.push_back(mail); }
};

// Delivers everything queued, in order (through the interface, as the
// runtime's hosted agents would be reached).
void DeliverAll(EventQueue& queue, Mailbox& mailbox, MailRecipients& r) {
  Event e;
  while (queue.Pop(e)) mailbox.Deliver(static_cast<uint32_t>(e.a), r);
}

TEST(MailboxUnitTest, MailToAnAgentThatDiedSinceItWasPostedIsDropped) {
  EventQueue queue;
  RunStats stats;
  Mailbox mailbox(queue, stats);
  mailbox.SetMachines(2);
  Recipients r;
  Message m1{.type = 1}, m2{.type = 2}, m3{.type = 3};
  mailbox.PostMessage(Address::Scheduler(0), Address::Node(MachineId(1)), m1, 5);
  mailbox.PostTimer(Address::Node(MachineId(1)), 7, 5);
  mailbox.PostMessage(Address::Scheduler(0), Address::Node(MachineId(0)), m2, 5);
  mailbox.NewNodeAgent(MachineId(1));  // machine 1's agent dies: what was posted to it is lost
  mailbox.PostMessage(Address::Scheduler(0), Address::Node(MachineId(1)), m3, 5);  // to its successor
  DeliverAll(queue, mailbox, r);
  EXPECT_EQ(r.log, (std::vector<std::string>{"node 0 message 2", "node 1 message 3"}));
  EXPECT_EQ(stats.messages_dropped, 1u);  // the timer is not a message
}

TEST(MailboxUnitTest, ACancelledTimerIsDroppedAndItsIdSpent) {
  EventQueue queue;
  RunStats stats;
  Mailbox mailbox(queue, stats);
  mailbox.SetMachines(2);
  Recipients r;
  const Address node0 = Address::Node(MachineId(0));
  const policy::TimerId first = mailbox.PostTimer(node0, 1, 10);
  const policy::TimerId second = mailbox.PostTimer(node0, 2, 20);
  EXPECT_FALSE(mailbox.CancelTimer(Address::Node(MachineId(1)), first));  // not machine 1's
  EXPECT_TRUE(mailbox.CancelTimer(node0, first));
  EXPECT_FALSE(mailbox.CancelTimer(node0, first));
  DeliverAll(queue, mailbox, r);
  EXPECT_EQ(r.log, std::vector<std::string>{"node 0 timer 2"});
  EXPECT_FALSE(mailbox.CancelTimer(node0, second));  // fired already
  EXPECT_EQ(stats.messages_dropped, 0u);
}

TEST(MailboxUnitTest, HostedAgentsGetTheirMailOnlyWhileUpThere) {
  EventQueue queue;
  RunStats stats;
  Mailbox mailbox(queue, stats);
  mailbox.SetMachines(2);
  Recipients r;
  r.elsewhere = true;
  r.up_elsewhere = {true, false};
  Message to0{.type = 4, .x = 0.25, .list = {9}}, to1{.type = 5};
  mailbox.PostMessage(Address::Scheduler(0), Address::Node(MachineId(0)), to0, 1);
  mailbox.PostMessage(Address::Scheduler(0), Address::Node(MachineId(1)), to1, 1);
  DeliverAll(queue, mailbox, r);
  EXPECT_TRUE(r.log.empty());  // nothing delivered locally
  ASSERT_EQ(r.forwarded.size(), 1u);
  EXPECT_EQ(r.forwarded[0].kind, NodeMail::Kind::kMessage);
  EXPECT_EQ(r.forwarded[0].message.type, 4u);
  EXPECT_EQ(r.forwarded[0].message.x, 0.25);
  EXPECT_EQ(r.forwarded[0].message.list, std::vector<int64_t>{9});
  EXPECT_EQ(stats.messages_dropped, 1u);
}

}  // namespace
}  // namespace weft::sim
