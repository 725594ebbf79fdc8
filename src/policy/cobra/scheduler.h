// File: policy/cobra/scheduler.h
//
// The fair job scheduler of COBRA (sections III and V): it divides the
// cluster's fixed-capacity containers among the running jobs by their
// desires, max-min fair (no job gets more than its desire; what a satisfied
// job leaves goes to the deprived ones; equal shares, the remainder to the
// earlier jobs), and grants each job containers up to its allocation through
// the shared ContainerGranter (after the container response time). The
// division is recomputed once per instant in which a desire, a job, a
// machine or a container changed (a zero-delay timer, so that desires sent
// at the same period boundary are divided together). There is no
// preemption: a job holding more than its allocation hears kAllocation and
// gives the excess back as its containers empty.
// Not thread-safe; the platform calls the handlers one at a time.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/cluster_state.h"
#include "policy/cobra/config.h"
#include "policy/common/container_protocol.h"
#include "policy/roles.h"

namespace weft::policy::cobra {

// FairDivision: max-min fair integer division of `slots` containers among
// jobs wanting `desires` (in the jobs' order; the remainder of an even split
// goes to the earlier jobs). Returns one allocation per job, each at most
// its desire, summing to at most `slots`.
std::vector<int64_t> FairDivision(const std::vector<int64_t>& desires, int64_t slots);

// ContainerSlots: how many containers of the configured size the up
// machines hold, cpu over-subscribed k-fold as the granter counts it, each
// machine at least one (a machine smaller than the size still holds one,
// cut down to it, as the granter gives it). The scheduler asks once per
// instant with something to divide: each machine's count is worked out once
// (capacities do not change) and, with every machine up (the cluster counts
// the up ones), the total is the sum kept, so only a cluster with machines
// down is walked, and cheaply. The up flags are read live, so a machine's
// failure counts at once, not when the scheduler hears of it.
class ContainerSlots {
 public:
  ContainerSlots(const Resources& container, double cpu_oversubscription)
      : container_(container), cpu_oversubscription_(cpu_oversubscription) {}
  int64_t Count(const ClusterState& cluster);
  // OnMachine: the containers one machine of `capacity` holds.
  int64_t OnMachine(const Resources& capacity) const;

 private:
  Resources container_;
  double cpu_oversubscription_;
  std::vector<int64_t> per_machine_;  // OnMachine of each machine, by id
  int64_t all_ = 0;                   // their sum
};

class CobraScheduler final : public ClusterScheduler {
 public:
  CobraScheduler(Context& ctx, const CobraConfig& config);

  void OnMessage(const Address& from, const Message& message) override;
  void OnTimer(uint64_t tag) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineUp(MachineId machine) override;
  void OnMachineDown(MachineId machine) override;
  void OnContainerReleased(const ContainerInfo& container) override;

 private:
  struct JobState {
    int64_t desire = 0;
    int64_t allocation = 0;
    // The allocation last sent to the job (kAllocation); -1: never. Once a
    // job has been told a cap it keeps it, so every later change must reach
    // it, raises included.
    int64_t told = -1;
    int64_t held = 0;  // granted, not yet released or lost
    Resources floor;   // the container size the job asks for
    Resources must_fit;  // what a container must hold, even cut down to its machine
  };

  // Rebalance soon (once per instant).
  void Touch();
  // Rebalance divides the containers by desire, tells jobs over their
  // allocation, trims or adds waiting requests, and grants.
  void Rebalance();
  void Grant();

  CobraConfig config_;
  ContainerGranter granter_;
  std::map<OrderKey, JobId> order_;  // jobs with a desire, FIFO
  absl::flat_hash_map<uint32_t, JobState> jobs_;
  absl::flat_hash_map<uint32_t, JobId> container_job_;  // held containers -> their job
  bool rebalance_pending_ = false;
  ContainerSlots slots_;
};

}  // namespace weft::policy::cobra
