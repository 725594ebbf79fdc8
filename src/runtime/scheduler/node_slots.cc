#include "runtime/scheduler/node_slots.h"

#include <algorithm>

#include "fmt/format.h"

namespace weft::runtime {

void NodeSlots::Restore(std::string name, Resources capacity, uint32_t rack) {
  names_.push_back(std::move(name));
  capacities_.push_back(capacity);
  racks_.push_back(rack);
  expected_ = std::max<uint32_t>(expected_, static_cast<uint32_t>(names_.size()));
}

absl::StatusOr<uint32_t> NodeSlots::Claim(const std::string& name, const Resources& capacity, uint32_t rack) {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it != names_.end()) {
    const auto slot = static_cast<uint32_t>(it - names_.begin());
    if (!(capacities_[slot] == capacity)) {
      return absl::FailedPreconditionError(fmt::format("node {} registered before with capacity {}, now {}", name,
                                                       capacities_[slot].ToString(), capacity.ToString()));
    }
    if (racks_[slot] != rack) {
      return absl::FailedPreconditionError(
          fmt::format("node {} registered before in rack {}, now in rack {}", name, racks_[slot], rack));
    }
    return slot;
  }
  if (complete()) {
    return absl::FailedPreconditionError(
        fmt::format("node {} is not one of this scheduler's {} nodes, and the cluster is full", name, expected_));
  }
  names_.push_back(name);
  capacities_.push_back(capacity);
  racks_.push_back(rack);
  return static_cast<uint32_t>(names_.size() - 1);
}

Cluster NodeSlots::BuildCluster() const {
  Cluster cluster;
  for (size_t s = 0; s < names_.size(); ++s) cluster.AddMachine(names_[s], RackId(racks_[s]), capacities_[s]);
  return cluster;
}

}  // namespace weft::runtime
