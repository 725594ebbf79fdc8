// File: tests/runtime/wire_test.cc
//
// The role-to-role channel's conversions (runtime/wire.h): a policy::Message
// survives ToProto, serialization to bytes, parsing and FromProto with every
// field intact, its fractional payload x included, so a node agent
// hosted in `weftd node` hears exactly what a simulated one would.
#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "runtime/wire.h"

namespace weft::runtime {
namespace {

policy::Message OverTheWire(const policy::Message& m) {
  std::string bytes;
  EXPECT_TRUE(ToProto(m).SerializeToString(&bytes));
  v1::RoleMessage parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  return FromProto(parsed);
}

TEST(WireTest, AMessageRoundTripsWithItsFractionalPayloads) {
  const policy::Message sent{.type = 7, .task = TaskRef{JobId(3), 2, 41}, .a = -5, .b = 1LL << 40, .c = 9,
                             .x = 0.1 + 0.2, .list = {4, -8, 15}};
  const policy::Message got = OverTheWire(sent);
  EXPECT_EQ(got.type, 7u);
  EXPECT_EQ(got.task, sent.task);
  EXPECT_EQ(got.a, -5);
  EXPECT_EQ(got.b, 1LL << 40);
  EXPECT_EQ(got.c, 9);
  // Exactly, bit for bit: no decimal or fixed-point step on the way.
  EXPECT_EQ(got.x, 0.1 + 0.2);
  EXPECT_EQ(got.list, sent.list);
  EXPECT_EQ(OverTheWire(policy::Message{.x = 1.0 / 3.0}).x, 1.0 / 3.0);
  EXPECT_EQ(OverTheWire(policy::Message{.x = -2.5e-300}).x, -2.5e-300);
}

TEST(WireTest, AMessageWithoutTaskOrPayloadStaysEmpty) {
  const policy::Message got = OverTheWire(policy::Message{.type = 2});
  EXPECT_FALSE(got.task.job.valid());
  EXPECT_EQ(got.x, 0.0);
  EXPECT_TRUE(got.list.empty());
}

TEST(WireTest, NonFiniteAndSignedZeroRealsArePassedAsThePolicySentThem) {
  // The channel carries values, it does not judge them: a policy that sends
  // an infinite desire gets it delivered as such.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(OverTheWire(policy::Message{.x = -inf}).x, -inf);
  EXPECT_TRUE(std::isnan(OverTheWire(policy::Message{.x = std::nan("")}).x));
  EXPECT_TRUE(std::signbit(OverTheWire(policy::Message{.x = -0.0}).x));
}

// The nodes' measurements as the scheduler reads them (issue 34: read in
// wire.h, not inline in the core).
TEST(WireTest, ATaskEndWithUsageGivesItsAverageAndPeak) {
  v1::TaskEnd end;
  end.set_has_usage(true);
  end.mutable_average()->set_cpu(0.5);
  end.mutable_average()->set_mem(0.25);
  end.mutable_peak()->set_cpu(2);
  end.mutable_peak()->set_net(10);
  const policy::TaskUsage u = MeasuredUsage(end);
  EXPECT_EQ(u.average.micro(kCpu), 500'000);
  EXPECT_EQ(u.average.micro(kMem), 250'000);
  EXPECT_EQ(u.peak.micro(kCpu), 2'000'000);
  EXPECT_EQ(u.peak.micro(kNet), 10'000'000);
}

TEST(WireTest, AnOlderNodesTaskEndGivesAverageCoresFromItsRunLength) {
  v1::TaskEnd end;  // cpu-seconds and peak RSS only
  end.set_cpu_seconds(3);
  end.set_run_us(2'000'000);
  end.set_peak_rss_bytes(500'000'000);
  const policy::TaskUsage u = MeasuredUsage(end);
  EXPECT_EQ(u.average.micro(kCpu), 1'500'000);  // 3 cpu-seconds over 2 s
  EXPECT_EQ(u.average.micro(kMem), 500'000);    // 0.5 GB
  EXPECT_EQ(u.peak.micro(kCpu), u.average.micro(kCpu));
}

TEST(WireTest, AMalformedMeasurementCountsAsNothingMeasured) {
  v1::ResourceVector v;
  v.set_cpu(-1);
  EXPECT_EQ(MeasuredResources(v).micro(kCpu), 0);
  v.set_cpu(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(MeasuredResources(v).micro(kCpu), 0);
  v1::TaskEnd end;
  end.set_cpu_seconds(1);
  end.set_run_us(0);  // no process: no rate
  EXPECT_EQ(MeasuredUsage(end).average.micro(kCpu), 0);
}

TEST(WireTest, AHeartbeatSampleIsReadInModelUnits) {
  v1::TaskUsage sample;
  sample.set_cpu_cores(1.25);
  sample.set_rss_bytes(2'000'000'000);
  sample.set_disk_mbps(30);
  sample.set_net_mbps(4);
  const Resources r = MeasuredResources(sample);
  EXPECT_EQ(r.micro(kCpu), 1'250'000);
  EXPECT_EQ(r.micro(kMem), 2'000'000);  // 2 GB
  EXPECT_EQ(r.micro(kDisk), 30'000'000);
  EXPECT_EQ(r.micro(kNet), 4'000'000);
}

TEST(WireTest, TheRegisteredMessageCarriesTheSessionsTerms) {
  const v1::SchedulerMessage m =
      RegisteredMessage(3, 500'000, 5'000'000, ReplicaIds{.index = 1, .count = 2}, MaskOf(kMem));
  ASSERT_TRUE(m.has_registered());
  EXPECT_EQ(m.registered().slot(), 3u);
  EXPECT_EQ(m.registered().heartbeat_ms(), 500);
  EXPECT_EQ(m.registered().node_timeout_ms(), 5000);
  EXPECT_EQ(m.registered().replica(), 1u);
  EXPECT_EQ(m.registered().replicas(), 2u);
  EXPECT_EQ(m.registered().overbooked(), 2u);
}

}  // namespace
}  // namespace weft::runtime
