// File: sim/network_flows.h (internal to sim/)
//
// NetworkFlows: the bytes the engine moves between machines (remote input
// reads, shuffle copies) as flows over the network's links, sharing them
// max-min fairly (sim/maxmin_sharing.h; docs/model.md, "Flows").
//
// Links. Every machine with network bandwidth has an interface out and an
// interface in, each of its `net` capacity (full duplex). A cluster that
// declares rack uplinks (docs/workload-format.md, "rack_uplink") has, per
// rack, an uplink out and an uplink in; a flow between racks crosses both
// racks' uplinks. A machine without network bandwidth (`net` left out) has
// no interface model: its flows are limited by the other links and their
// cap only (a workload that does not describe the network is not given one).
// A flow within one machine crosses no link and takes no time.
//
// Flows. A flow carries `mb` from one machine to another at the max-min fair
// rate of the links it crosses, at most its cap (the locality cost's per-read
// bandwidth, for instance); a flow may grow (AddBytes: a shuffle copy from a
// machine where one more parent task has ended). When any flow starts, grows
// or goes, the connected links are re-solved and each flow whose rate
// changed gets a new end event (EventType::kFlowEnd, a = flow, b = version);
// an event whose version is old is ignored.
//
// Every flow belongs to an attempt (slot, generation): EndOwner removes the
// attempt's flows when it ends early. Finished flows are reported to the
// caller with their record (the schedule checker checks the links'
// conservation from those). Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/cluster.h"
#include "sim/event_queue.h"
#include "sim/maxmin_sharing.h"

namespace weft::sim {

// FlowOwner: the attempt a flow works for.
struct FlowOwner {
  uint32_t slot = 0;
  uint32_t generation = 0;
  FlowKind kind = FlowKind::kRemoteRead;
};

// EndedFlow: a flow once it ended (done, or cut short with its attempt).
struct EndedFlow {
  FlowOwner owner;
  MachineId from;
  MachineId to;
  TimeUs start_us = 0;
  TimeUs end_us = 0;
  double mb = 0;     // carried (all of it when done)
  bool done = false;
};

class NetworkFlows {
 public:
  using FlowId = uint32_t;
  static constexpr FlowId kNoFlow = UINT32_MAX;
  static constexpr double kNoCap = MaxMinSharing::kNoCap;

  NetworkFlows(const Cluster& cluster, EventQueue& queue);

  // Start: a flow of `mb` (> 0) from `from` to `to`, at most `cap_mbps`.
  FlowId Start(MachineId from, MachineId to, double mb, double cap_mbps, const FlowOwner& owner);
  // AddBytes: flow `f` (live) has `mb` more to carry.
  void AddBytes(FlowId f, double mb);
  // Finish: the flow of end event `e`, done, if the event is current; its
  // record is appended to `finished`.
  std::optional<FlowOwner> Finish(const Event& e, std::vector<EndedFlow>& finished);
  // EndOwner: every live flow of the attempt ends now, not done; their
  // records are appended to `finished`.
  void EndOwner(uint32_t slot, uint32_t generation, std::vector<EndedFlow>& finished);
  // FlowFrom: the attempt's live flow from machine `from`, or kNoFlow.
  FlowId FlowFrom(uint32_t slot, uint32_t generation, MachineId from) const;
  // Live: how many flows the attempt has running.
  uint32_t Live(uint32_t slot, uint32_t generation) const;
  // Outgoing: how many flows leave machine `m` now (to spread reads over
  // the machines holding an input).
  uint32_t Outgoing(MachineId m) const { return outgoing_[m.value()]; }
  size_t live() const { return live_; }

 private:
  static constexpr uint32_t kNoLink = UINT32_MAX;
  struct Flow {
    bool live = false;
    FlowOwner owner;
    MachineId from;
    MachineId to;
    uint32_t activity = 0;
    uint32_t version = 0;
    double mb = 0;          // total to carry
    double remaining = 0;   // MB left as of updated_us
    double rate = 0;        // MB/s
    TimeUs start_us = 0;
    TimeUs updated_us = 0;
  };

  // Resolve: re-solves the links touched since the last call and moves the
  // end events of the flows whose rate changed.
  void Resolve();
  void Reschedule(FlowId f);
  void Remove(FlowId f, bool done, std::vector<EndedFlow>& finished);
  FlowId FlowOfActivity(uint32_t activity) const { return by_activity_[activity]; }

  const Cluster& cluster_;
  EventQueue& queue_;
  MaxMinSharing links_;
  std::vector<uint32_t> out_, in_;                  // per machine: its interface's constraint, or kNoLink
  std::vector<uint32_t> uplink_out_, uplink_in_;    // per rack, or empty without declared uplinks
  std::vector<Flow> flows_;
  std::vector<FlowId> free_;
  std::vector<FlowId> by_activity_;
  std::vector<uint32_t> outgoing_;                  // per machine: live flows leaving it
  absl::flat_hash_map<uint64_t, std::vector<FlowId>> by_owner_;  // AttemptTable::Id -> its live flows
  size_t live_ = 0;
};

}  // namespace weft::sim
