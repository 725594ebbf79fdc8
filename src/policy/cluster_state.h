// File: policy/cluster_state.h
//
// ClusterState: the platform's live view of the machines, as policies may read
// it: which machines are up, their capacity, what the platform has reserved
// on each (launched tasks and granted containers) and what the running tasks
// really use (the monitoring a real cluster has). The platform (simulator or
// runtime) owns and updates it; policies get a const reference through their
// Context. Not thread-safe: read it only from inside a role's handlers.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ids.h"
#include "model/cluster.h"
#include "model/resources.h"

namespace weft::policy {

class ClusterState {
 public:
  explicit ClusterState(const Cluster& cluster);

  const Cluster& cluster() const { return *cluster_; }
  size_t size() const { return cluster_->size(); }
  const Machine& machine(MachineId m) const { return cluster_->machine(m); }
  RackId rack(MachineId m) const { return cluster_->machine(m).rack; }
  const Resources& capacity(MachineId m) const { return cluster_->machine(m).capacity; }

  bool up(MachineId m) const { return up_[m.value()]; }
  // set_unfitted: the resources Fits ignores for every caller (the engine
  // sets the policy's, Policy::unfitted, once).
  void set_unfitted(ResourceMask unfitted) { unfitted_ = unfitted; }
  ResourceMask unfitted() const { return unfitted_; }
  // allocated: the sum of the demands of tasks launched on m outside
  // containers, plus the sizes of the containers granted on m.
  const Resources& allocated(MachineId m) const { return allocated_[m.value()]; }
  Resources free(MachineId m) const { return capacity(m) - allocated_[m.value()]; }
  // Fits: m is up and `demand` fits in what is not yet allocated, but for
  // the resources in `overbooked` and those the run does not fit tasks by
  // (the policies' `fit` parameter: set_unfitted).
  bool Fits(MachineId m, const Resources& demand, ResourceMask overbooked = 0) const {
    return up_[m.value()] && (allocated_[m.value()] + demand).FitsInExcept(capacity(m), overbooked | unfitted_);
  }
  // used: what the tasks running on m really use now, measured (the
  // execution model in simulation, the nodes' readings for real); it follows
  // tasks' progress rates and never exceeds the capacity of cpu, disk or net.
  const Resources& used(MachineId m) const { return used_[m.value()]; }
  // running: tasks launched or running on m.
  uint32_t running(MachineId m) const { return running_[m.value()]; }
  uint32_t num_up() const { return num_up_; }

  // Mutators, for the platform only.
  void SetUp(MachineId m, bool up);
  void Allocate(MachineId m, const Resources& r) { allocated_[m.value()] += r; }
  void Deallocate(MachineId m, const Resources& r) { allocated_[m.value()] -= r; }
  void AddUsed(MachineId m, const Resources& r) { used_[m.value()] += r; }
  void RemoveUsed(MachineId m, const Resources& r) { used_[m.value()] -= r; }
  void AddRunning(MachineId m, int delta) { running_[m.value()] += delta; }

 private:
  const Cluster* cluster_;
  std::vector<bool> up_;
  std::vector<Resources> allocated_;
  std::vector<Resources> used_;
  ResourceMask unfitted_ = 0;
  std::vector<uint32_t> running_;
  uint32_t num_up_ = 0;
};

}  // namespace weft::policy
