// NetworkFlows: flows share interfaces and rack uplinks max-min fairly, caps
// leave the rest to others, and events move when rates change. Each case is
// computed by hand in its comment.
#include "sim/network_flows.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace weft::sim {
namespace {

// A cluster of machines with `net` MB/s each; racks as given.
Cluster Machines(const std::vector<std::pair<double, uint32_t>>& net_and_rack) {
  Cluster c;
  for (size_t i = 0; i < net_and_rack.size(); ++i) {
    Resources r;
    r.set_micro(kCpu, kMicroUnits);
    r.set_micro(kNet, static_cast<int64_t>(net_and_rack[i].first * kMicroUnits));
    c.AddMachine("m" + std::to_string(i), RackId(net_and_rack[i].second), r);
  }
  return c;
}

FlowOwner Owner(uint32_t slot, FlowKind kind = FlowKind::kShuffle) {
  return FlowOwner{.slot = slot, .generation = 1, .kind = kind};
}

// Runs the queue to its end; returns each owner slot's end time in seconds.
std::map<uint32_t, double> RunFlows(EventQueue& q, NetworkFlows& net, std::vector<EndedFlow>* ended = nullptr) {
  std::map<uint32_t, double> end_s;
  std::vector<EndedFlow> records;
  Event e;
  while (q.Pop(e)) {
    if (e.type != EventType::kFlowEnd) continue;
    if (auto owner = net.Finish(e, records)) end_s[owner->slot] = static_cast<double>(q.now()) / 1e6;
  }
  if (ended != nullptr) *ended = records;
  return end_s;
}

MachineId M(uint32_t i) { return MachineId(i); }

// Two 1000 MB reads out of one 100 MB/s interface: 50 MB/s each, both end at
// 20 s (alone, each would take 10 s).
TEST(NetworkFlowsTest, TwoFlowsOutOfOneInterfaceShareIt) {
  const Cluster c = Machines({{100, 0}, {1000, 1}, {1000, 2}});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(1), 1000, NetworkFlows::kNoCap, Owner(1));
  net.Start(M(0), M(2), 1000, NetworkFlows::kNoCap, Owner(2));
  const auto end = RunFlows(q, net);
  EXPECT_NEAR(end.at(1), 20.0, 1e-5);
  EXPECT_NEAR(end.at(2), 20.0, 1e-5);
}

// A flow capped at 20 MB/s leaves 80 to the other: 400 MB at 20 ends at 20 s;
// 800 MB at 80 ends at 10 s, and then the capped one stays at its cap.
TEST(NetworkFlowsTest, ACappedFlowLeavesTheRestToTheOther) {
  const Cluster c = Machines({{100, 0}, {1000, 0}, {1000, 0}});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(1), 400, 20, Owner(1));
  net.Start(M(0), M(2), 800, NetworkFlows::kNoCap, Owner(2));
  const auto end = RunFlows(q, net);
  EXPECT_NEAR(end.at(1), 20.0, 1e-5);
  EXPECT_NEAR(end.at(2), 10.0, 1e-5);
}

// Incast: four senders into one 100 MB/s interface, 100 MB each: 25 MB/s
// each, all end at 4 s.
TEST(NetworkFlowsTest, IncastSharesTheReceiversInterface) {
  const Cluster c = Machines({{100, 0}, {100, 0}, {100, 0}, {100, 0}, {100, 0}});
  EventQueue q;
  NetworkFlows net(c, q);
  for (uint32_t i = 1; i <= 4; ++i) net.Start(M(i), M(0), 100, NetworkFlows::kNoCap, Owner(i));
  const auto end = RunFlows(q, net);
  for (uint32_t i = 1; i <= 4; ++i) EXPECT_NEAR(end.at(i), 4.0, 1e-5) << i;
}

// Full duplex: a flow each way between two machines does not share.
TEST(NetworkFlowsTest, InterfacesAreFullDuplex) {
  const Cluster c = Machines({{100, 0}, {100, 0}});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(1), 100, NetworkFlows::kNoCap, Owner(1));
  net.Start(M(1), M(0), 100, NetworkFlows::kNoCap, Owner(2));
  const auto end = RunFlows(q, net);
  EXPECT_NEAR(end.at(1), 1.0, 1e-5);
  EXPECT_NEAR(end.at(2), 1.0, 1e-5);
}

// Rack uplinks of 100 MB/s: two cross-rack flows between 1000 MB/s machines
// share rack 0's uplink out (50 each, 500 MB in 10 s); a flow within rack 0
// crosses no uplink and runs at its interfaces' 1000 MB/s... except that it
// leaves from m0, whose interface out it shares with one cross-rack flow:
// m0 out carries 50 (cross) + the rest, so the local flow gets 950.
TEST(NetworkFlowsTest, CrossRackFlowsShareTheUplink) {
  Cluster c = Machines({{1000, 0}, {1000, 0}, {1000, 0}, {1000, 1}, {1000, 1}});
  c.set_rack_uplinks(RackUplinks{.mbps = 100});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(3), 500, NetworkFlows::kNoCap, Owner(1));
  net.Start(M(1), M(4), 500, NetworkFlows::kNoCap, Owner(2));
  net.Start(M(0), M(2), 950, NetworkFlows::kNoCap, Owner(3));
  const auto end = RunFlows(q, net);
  EXPECT_NEAR(end.at(1), 10.0, 1e-5);
  EXPECT_NEAR(end.at(2), 10.0, 1e-5);
  EXPECT_NEAR(end.at(3), 1.0, 1e-5);
}

// Oversubscription 4 on racks of two 100 MB/s machines: each uplink is 50.
TEST(NetworkFlowsTest, AnOversubscriptionRatioSizesTheUplinks) {
  Cluster c = Machines({{100, 0}, {100, 0}, {100, 1}, {100, 1}});
  c.set_rack_uplinks(RackUplinks{.oversubscription = 4});
  EXPECT_DOUBLE_EQ(c.RackUplinkMbps(RackId(0)), 50);
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(2), 100, NetworkFlows::kNoCap, Owner(1));
  EXPECT_NEAR(RunFlows(q, net).at(1), 2.0, 1e-5);
}

// A flow that grows ends later: 100 MB at 100 MB/s, 100 MB more at 0.5 s:
// 150 MB left then, so it ends at 2 s.
TEST(NetworkFlowsTest, AddedBytesMoveTheEnd) {
  const Cluster c = Machines({{100, 0}, {100, 0}});
  EventQueue q;
  NetworkFlows net(c, q);
  const auto f = net.Start(M(0), M(1), 100, NetworkFlows::kNoCap, Owner(1));
  q.Push(Event{.time = 500'000, .type = EventType::kJobArrival});
  Event e;
  ASSERT_TRUE(q.Pop(e));
  while (e.type != EventType::kJobArrival) ASSERT_TRUE(q.Pop(e));
  net.AddBytes(f, 100);
  EXPECT_EQ(net.FlowFrom(1, 1, M(0)), f);
  EXPECT_NEAR(RunFlows(q, net).at(1), 2.0, 1e-5);
}

// An attempt that ends takes its flows with it and the others speed up: two
// 100 MB flows out of a 100 MB/s interface; one owner ends at 1 s (50 MB
// carried each), the other then has 50 MB alone: ends at 1.5 s.
TEST(NetworkFlowsTest, AnEndedOwnersFlowsGoAndTheRestSpeedUp) {
  const Cluster c = Machines({{100, 0}, {1000, 0}, {1000, 0}});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(1), 100, NetworkFlows::kNoCap, Owner(1));
  net.Start(M(0), M(2), 100, NetworkFlows::kNoCap, Owner(2));
  q.Push(Event{.time = 1'000'000, .type = EventType::kJobArrival});
  Event e;
  do ASSERT_TRUE(q.Pop(e));
  while (e.type != EventType::kJobArrival);
  std::vector<EndedFlow> cut;
  net.EndOwner(1, 1, cut);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_FALSE(cut[0].done);
  EXPECT_NEAR(cut[0].mb, 50, 1e-6);
  EXPECT_EQ(net.Live(1, 1), 0u);
  std::vector<EndedFlow> done;
  const auto end = RunFlows(q, net, &done);
  EXPECT_EQ(end.count(1), 0u);  // its old end event is ignored
  EXPECT_NEAR(end.at(2), 1.5, 1e-5);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].done);
  EXPECT_DOUBLE_EQ(done[0].mb, 100);
}

// Machines without network bandwidth have no interface model: a capped flow
// runs at its cap; an uncapped one between them is carried at once.
TEST(NetworkFlowsTest, MachinesWithoutNetworkLimitFlowsByTheirCapOnly) {
  const Cluster c = Machines({{0, 0}, {0, 1}});
  EventQueue q;
  NetworkFlows net(c, q);
  net.Start(M(0), M(1), 100, 50, Owner(1));
  net.Start(M(0), M(1), 100, 50, Owner(2));
  net.Start(M(1), M(0), 100, NetworkFlows::kNoCap, Owner(3));
  const auto end = RunFlows(q, net);
  EXPECT_NEAR(end.at(1), 2.0, 1e-5);
  EXPECT_NEAR(end.at(2), 2.0, 1e-5);
  EXPECT_NEAR(end.at(3), 0.0, 1e-5);
}

}  // namespace
}  // namespace weft::sim
