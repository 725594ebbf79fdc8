// File: policy/ursa/node_agent.h
//
// UrsaNode: Ursa's worker (002_872a20c16a9dbee0.txt section 4.2.3), the
// node agent of `ursa` and `ursa-yarn`. It controls phases: every monotask
// of a task placed on its machine waits in the per-resource queue of its
// resource (common/resource_queues.h: cpu as many at once as the machine has
// cores, disk and net `disk_concurrency` / `net_concurrency`; ordered by job
// rank, then within a stage by input size) until the resource frees. When a
// monotask ends it reports to the scheduler and to the job's manager
// (kMonotaskDone, with the worker's measured processing rate of that
// resource), and when a task's attempt ends, to the scheduler (kTaskGone).
// Rates, as section 4.2.2 defines them: cpu, X/T times the cores, X the work
// and T the summed running time of finished cpu monotasks; disk and net, X
// over the time the queue had anything running (their monotasks share the
// bandwidth, so one monotask's own time would undercount it). Job ranks:
// the job's arrival time (EJF) unless the scheduler sent one (kRank, SRJF).
// Tasks without phases run whole: the agent only reports their end.
// ursa-yarn: a job manager that runs a task in a container says so first
// (kInContainer); that task's monotasks then queue in the container's own
// queues, whose cpu limit is the container's cores, so jobs share nothing
// (MonoSpark in YARN containers, section 5.1.2).
// Not thread-safe (one role).
#pragma once

#include <map>

#include "absl/container/flat_hash_map.h"
#include "policy/common/resource_queues.h"
#include "policy/roles.h"

namespace weft::policy::ursa {

struct NodeConfig {
  uint32_t net_concurrency = 1;
  uint32_t disk_concurrency = 1;
};

class UrsaNode final : public NodeAgent {
 public:
  UrsaNode(Context& ctx, MachineId machine, const NodeConfig& config);

  bool ControlsPhases() const override { return true; }
  void OnPhaseReady(const TaskRef& task, uint32_t phase) override;
  void OnPhaseEnded(const TaskRef& task, uint32_t phase) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnMessage(const Address& from, const Message& message) override;

 private:
  struct Running {
    Resource resource = kCpu;
    uint32_t phase = 0;
    TimeUs start_us = 0;
    double work = 0;
    uint64_t key = 0;
  };
  struct RateBook {
    double work = 0;       // X
    TimeUs time_us = 0;    // T (cpu: summed; disk, net: busy)
    TimeUs busy_since = 0;
  };
  // Queues of the machine (key 0) or of one container (its id + 1).
  ResourceQueues& QueuesOf(uint64_t key);
  void Pump(uint64_t key, Resource r);
  double Rate(Resource r) const;
  // BusyCount: monotasks of r running on the machine, over all queues.
  uint32_t BusyCount(Resource r) const;

  NodeConfig config_;
  uint32_t cores_;
  std::map<uint64_t, ResourceQueues> queues_;
  std::map<TaskRef, uint64_t> container_of_;  // from kInContainer
  std::map<TaskRef, Running> running_;
  std::array<RateBook, kNumResources> rates_{};
  absl::flat_hash_map<uint32_t, double> ranks_;  // by job id, from kRank
};

}  // namespace weft::policy::ursa
