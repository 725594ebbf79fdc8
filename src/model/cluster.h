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
};

class Cluster {
 public:
  // AddMachine appends a machine; names must be unique (the reader checks).
  MachineId AddMachine(std::string name, RackId rack, Resources capacity);

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

 private:
  std::vector<Machine> machines_;
  absl::flat_hash_map<std::string, MachineId> by_name_;
  Resources total_;
  uint32_t num_racks_ = 0;
};

}  // namespace weft
