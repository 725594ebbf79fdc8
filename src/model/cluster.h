// File: model/cluster.h
//
// Cluster: the machines a workload runs on, each with a name, a rack and a
// capacity. Immutable once built; safe to share between threads for reading.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "model/resources.h"

namespace weft {

struct Machine {
  std::string name;
  RackId rack;
  Resources capacity;
  // Swap space in millionths of a GB, as Resources' memory: memory beyond
  // capacity but within capacity + swap pages (docs/model.md, "Paging")
  // instead of failing a task. Not a resource: nothing reserves it.
  int64_t swap_micro = 0;
};

// LocalityCost: what reading a task's input from another machine costs. Off
// (enabled false) unless the workload's cluster section gives it, so results
// without it do not move. Either bandwidths (MB/s of a read from a machine in
// the same rack, and from another rack) or factors (how many times slower
// the task's read part runs from the same rack, and from another rack).
struct LocalityCost {
  bool enabled = false;
  double rack_mbps = 0;
  double cross_rack_mbps = 0;
  double rack_factor = 1;
  double remote_factor = 1;
};

// RackUplinks: the links between each rack and the rest of the network
// (docs/workload-format.md, "rack_uplink"), each direction: either a
// bandwidth per rack, or an oversubscription ratio R (a rack's uplink carries
// the sum of its machines' `net` divided by R). Neither: non-blocking (no
// uplink is modelled), the default.
struct RackUplinks {
  double mbps = 0;
  double oversubscription = 0;
};

class Cluster {
 public:
  // AddMachine appends a machine; names must be unique (the reader checks).
  MachineId AddMachine(std::string name, RackId rack, Resources capacity, int64_t swap_micro = 0);

  size_t size() const { return machines_.size(); }
  uint32_t num_racks() const { return num_racks_; }
  const Machine& machine(MachineId id) const { return machines_[id.value()]; }
  const std::vector<Machine>& machines() const { return machines_; }

  // Find returns the machine called `name`, or an invalid id.
  MachineId Find(std::string_view name) const;

  // Total capacity of all machines.
  const Resources& total_capacity() const { return total_; }

  // LargestFits: true when `demand` fits some machine's capacity.
  bool AnyMachineFits(const Resources& demand) const;

  const LocalityCost& locality_cost() const { return locality_cost_; }
  void set_locality_cost(const LocalityCost& cost) { locality_cost_ = cost; }

  const RackUplinks& rack_uplinks() const { return rack_uplinks_; }
  void set_rack_uplinks(const RackUplinks& uplinks) { rack_uplinks_ = uplinks; }
  // RackUplinkMbps: rack `r`'s uplink bandwidth each way; 0 when non-blocking.
  double RackUplinkMbps(RackId r) const;

 private:
  std::vector<Machine> machines_;
  absl::flat_hash_map<std::string, MachineId> by_name_;
  Resources total_;
  uint32_t num_racks_ = 0;
  LocalityCost locality_cost_;
  RackUplinks rack_uplinks_;
};

}  // namespace weft
