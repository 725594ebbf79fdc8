// File: runtime/scheduler/node_slots.h
//
// NodeSlots: the scheduler's fixed set of machines. A scheduler expects N
// nodes (--nodes); each node that registers takes a slot (its MachineId) by
// name, and a node that comes back under the same name gets its slot again.
// The cluster the policy sees is built once every slot has been taken (or
// from the journal after a restart) and never changes shape afterwards:
// machines only go down and up, as in the simulator.
// Not thread-safe: the scheduler core calls it under its lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/cluster.h"
#include "model/resources.h"

namespace weft::runtime {

class NodeSlots {
 public:
  explicit NodeSlots(uint32_t expected) : expected_(expected) {}

  // Restore puts back a slot from the journal (in slot order).
  void Restore(std::string name, Resources capacity, uint32_t rack = 0);

  // Claim returns the slot of `name`: its old one, or a new one while slots
  // are free. FailedPrecondition when the cluster is full, or when a known
  // node comes back with another capacity or rack.
  absl::StatusOr<uint32_t> Claim(const std::string& name, const Resources& capacity, uint32_t rack = 0);

  bool complete() const { return names_.size() == expected_; }
  uint32_t expected() const { return expected_; }
  size_t size() const { return names_.size(); }
  const std::string& name(uint32_t slot) const { return names_[slot]; }
  const Resources& capacity(uint32_t slot) const { return capacities_[slot]; }
  uint32_t rack(uint32_t slot) const { return racks_[slot]; }

  // BuildCluster: one machine per slot, in slot order (complete() only).
  Cluster BuildCluster() const;

 private:
  uint32_t expected_;
  std::vector<std::string> names_;
  std::vector<Resources> capacities_;
  std::vector<uint32_t> racks_;  // weftd node --rack
};

}  // namespace weft::runtime
