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
#include "policy/cobra/config.h"
#include "policy/common/container_protocol.h"
#include "policy/roles.h"

namespace weft::policy::cobra {

// FairDivision: max-min fair integer division of `slots` containers among
// jobs wanting `desires` (in the jobs' order; the remainder of an even split
// goes to the earlier jobs). Returns one allocation per job, each at most
// its desire, summing to at most `slots`.
std::vector<int64_t> FairDivision(const std::vector<int64_t>& desires, int64_t slots);

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
  // Slots: how many containers of the configured size the up machines hold.
  // Called once per instant with something to divide: what each machine
  // holds is worked out once (capacities do not change), and with every
  // machine up the total is the sum kept (the cluster counts the up ones),
  // so only a cluster with machines down is walked, and cheaply.
  int64_t Slots();
  // MachineSlots: how many containers of the configured size machine `m` holds.
  int64_t MachineSlots(MachineId m) const;

  CobraConfig config_;
  ContainerGranter granter_;
  std::map<OrderKey, JobId> order_;  // jobs with a desire, FIFO
  absl::flat_hash_map<uint32_t, JobState> jobs_;
  absl::flat_hash_map<uint32_t, JobId> container_job_;  // held containers -> their job
  bool rebalance_pending_ = false;
  std::vector<int64_t> machine_slots_;  // MachineSlots of each machine, by id
  int64_t all_slots_ = 0;               // their sum
};

}  // namespace weft::policy::cobra
