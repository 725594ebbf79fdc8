#include "policy/cluster_state.h"

namespace weft::policy {

ClusterState::ClusterState(const Cluster& cluster)
    : cluster_(&cluster),
      up_(cluster.size(), true),
      allocated_(cluster.size()),
      used_(cluster.size()),
      running_(cluster.size(), 0),
      num_up_(static_cast<uint32_t>(cluster.size())) {}

void ClusterState::SetUp(MachineId m, bool up) {
  if (up_[m.value()] == up) return;
  up_[m.value()] = up;
  num_up_ += up ? 1 : -1;
}

}  // namespace weft::policy
