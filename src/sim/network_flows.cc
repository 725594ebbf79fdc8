#include "sim/network_flows.h"

#include <algorithm>
#include <cmath>

namespace weft::sim {

namespace {
uint64_t OwnerKey(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
}  // namespace

NetworkFlows::NetworkFlows(const Cluster& cluster, EventQueue& queue)
    : cluster_(cluster), queue_(queue), outgoing_(cluster.size(), 0) {
  out_.reserve(cluster.size());
  in_.reserve(cluster.size());
  for (const Machine& m : cluster.machines()) {
    const double net = m.capacity.units(kNet);
    out_.push_back(net > 0 ? links_.AddConstraint(net) : kNoLink);
    in_.push_back(net > 0 ? links_.AddConstraint(net) : kNoLink);
  }
  for (uint32_t r = 0; r < cluster.num_racks(); ++r) {
    const double uplink = cluster.RackUplinkMbps(RackId(r));
    if (uplink <= 0) continue;  // non-blocking: no uplink to model
    if (uplink_out_.empty()) {
      uplink_out_.assign(cluster.num_racks(), kNoLink);
      uplink_in_.assign(cluster.num_racks(), kNoLink);
    }
    uplink_out_[r] = links_.AddConstraint(uplink);
    uplink_in_[r] = links_.AddConstraint(uplink);
  }
}

NetworkFlows::FlowId NetworkFlows::Start(MachineId from, MachineId to, double mb, double cap_mbps,
                                         const FlowOwner& owner) {
  std::vector<MaxMinSharing::Use> uses;
  auto use = [&](uint32_t link) {
    if (link != kNoLink) uses.push_back({link, 1.0});
  };
  use(out_[from.value()]);
  use(in_[to.value()]);
  const RackId from_rack = cluster_.machine(from).rack;
  const RackId to_rack = cluster_.machine(to).rack;
  if (!uplink_out_.empty() && from_rack != to_rack) {
    use(uplink_out_[from_rack.value()]);
    use(uplink_in_[to_rack.value()]);
  }
  FlowId f;
  if (free_.empty()) {
    f = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  } else {
    f = free_.back();
    free_.pop_back();
  }
  Flow& flow = flows_[f];
  const TimeUs now = queue_.now();
  flow = Flow{.live = true, .owner = owner, .from = from, .to = to, .version = flow.version + 1, .mb = mb,
              .remaining = mb, .rate = 0, .start_us = now, .updated_us = now};
  ++live_;
  ++outgoing_[from.value()];
  by_owner_[OwnerKey(owner.slot, owner.generation)].push_back(f);
  if (uses.empty() && !(cap_mbps < kNoCap)) {
    // Nothing limits it (a copy within one machine, or machines without an
    // interface model and no cap): it is carried at once.
    flow.activity = kNoLink;
    flow.rate = kNoCap;
    queue_.Push(Event{.time = now, .type = EventType::kFlowEnd, .a = f, .b = flow.version});
    return f;
  }
  flow.activity = links_.AddActivity(1.0, cap_mbps, uses);
  if (by_activity_.size() <= flow.activity) by_activity_.resize(flow.activity + 1, kNoFlow);
  by_activity_[flow.activity] = f;
  Resolve();
  return f;
}

void NetworkFlows::AddBytes(FlowId f, double mb) {
  Flow& flow = flows_[f];
  const TimeUs now = queue_.now();
  if (flow.rate < kNoCap) flow.remaining -= flow.rate * static_cast<double>(now - flow.updated_us) / 1e6;
  flow.remaining = std::max(flow.remaining, 0.0) + mb;
  flow.mb += mb;
  flow.updated_us = now;
  if (flow.activity == kNoLink) return;  // carried at once: its end event stands
  Reschedule(f);
}

void NetworkFlows::Resolve() {
  const TimeUs now = queue_.now();
  for (const uint32_t v : links_.Solve()) {
    const FlowId f = FlowOfActivity(v);
    Flow& flow = flows_[f];
    // Progress at the old rate up to now, then the new rate from now on.
    flow.remaining = std::max(0.0, flow.remaining - flow.rate * static_cast<double>(now - flow.updated_us) / 1e6);
    flow.updated_us = now;
    const double rate = links_.rate(v);
    if (rate == flow.rate) continue;  // its end event stands
    flow.rate = rate;
    Reschedule(f);
  }
}

void NetworkFlows::Reschedule(FlowId f) {
  Flow& flow = flows_[f];
  ++flow.version;
  if (flow.rate <= 0) return;  // stalled (a link of no capacity): no end until a rate comes back
  const double us = flow.remaining / flow.rate * 1e6;
  const TimeUs end = queue_.now() + static_cast<TimeUs>(std::ceil(us - 1e-6));
  queue_.Push(Event{.time = std::max(end, queue_.now()), .type = EventType::kFlowEnd, .a = f, .b = flow.version});
}

std::optional<FlowOwner> NetworkFlows::Finish(const Event& e, std::vector<EndedFlow>& finished) {
  if (e.a >= flows_.size()) return std::nullopt;
  const Flow& flow = flows_[e.a];
  if (!flow.live || flow.version != e.b) return std::nullopt;  // moved, or ended with its attempt
  const FlowOwner owner = flow.owner;
  Remove(e.a, /*done=*/true, finished);
  Resolve();
  return owner;
}

void NetworkFlows::EndOwner(uint32_t slot, uint32_t generation, std::vector<EndedFlow>& finished) {
  if (live_ == 0) return;  // the usual case on a trace replay: no lookup on every attempt's end
  const auto it = by_owner_.find(OwnerKey(slot, generation));
  if (it == by_owner_.end()) return;
  const std::vector<FlowId> ids = std::move(it->second);
  by_owner_.erase(it);
  for (const FlowId f : ids) Remove(f, /*done=*/false, finished);
  Resolve();
}

uint32_t NetworkFlows::Live(uint32_t slot, uint32_t generation) const {
  const auto it = by_owner_.find(OwnerKey(slot, generation));
  return it == by_owner_.end() ? 0 : static_cast<uint32_t>(it->second.size());
}

NetworkFlows::FlowId NetworkFlows::FlowFrom(uint32_t slot, uint32_t generation, MachineId from) const {
  const auto it = by_owner_.find(OwnerKey(slot, generation));
  if (it == by_owner_.end()) return kNoFlow;
  for (const FlowId f : it->second) {
    if (flows_[f].from == from) return f;
  }
  return kNoFlow;
}

void NetworkFlows::Remove(FlowId f, bool done, std::vector<EndedFlow>& finished) {
  Flow& flow = flows_[f];
  const TimeUs now = queue_.now();
  double carried = flow.mb;
  if (!done) {
    const double left = flow.rate < kNoCap
                            ? flow.remaining - flow.rate * static_cast<double>(now - flow.updated_us) / 1e6
                            : 0.0;
    carried = flow.mb - std::max(0.0, left);
  }
  finished.push_back(EndedFlow{.owner = flow.owner, .from = flow.from, .to = flow.to, .start_us = flow.start_us,
                                .end_us = now, .mb = carried, .done = done});
  if (done) {
    const auto it = by_owner_.find(OwnerKey(flow.owner.slot, flow.owner.generation));
    if (it != by_owner_.end()) {
      std::erase(it->second, f);
      if (it->second.empty()) by_owner_.erase(it);
    }
  }
  if (flow.activity != kNoLink) {
    links_.RemoveActivity(flow.activity);
    by_activity_[flow.activity] = kNoFlow;
  }
  flow.live = false;
  ++flow.version;
  --live_;
  --outgoing_[flow.from.value()];
  free_.push_back(f);
}

}  // namespace weft::sim
