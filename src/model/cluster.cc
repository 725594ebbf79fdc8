#include "model/cluster.h"

#include <algorithm>

namespace weft {

MachineId Cluster::AddMachine(std::string name, RackId rack, Resources capacity, int64_t swap_micro) {
  const MachineId id(static_cast<uint32_t>(machines_.size()));
  by_name_.emplace(name, id);
  total_ += capacity;
  num_racks_ = std::max(num_racks_, rack.value() + 1);
  machines_.push_back(Machine{std::move(name), rack, capacity, swap_micro});
  return id;
}

MachineId Cluster::Find(std::string_view name) const {
  auto it = by_name_.find(absl::string_view(name.data(), name.size()));
  return it == by_name_.end() ? MachineId() : it->second;
}

bool Cluster::AnyMachineFits(const Resources& demand) const {
  // Distinct capacity shapes are few; a linear scan is fine at read time.
  return std::any_of(machines_.begin(), machines_.end(),
                     [&](const Machine& m) { return demand.FitsIn(m.capacity); });
}

double Cluster::RackUplinkMbps(RackId r) const {
  if (rack_uplinks_.mbps > 0) return rack_uplinks_.mbps;
  if (rack_uplinks_.oversubscription <= 0) return 0;
  double net = 0;  // a linear scan: called once per rack when a run starts
  for (const Machine& m : machines_) {
    if (m.rack == r) net += m.capacity.units(kNet);
  }
  return net / rack_uplinks_.oversubscription;
}

}  // namespace weft
