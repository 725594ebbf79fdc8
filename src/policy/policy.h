// File: policy/policy.h
//
// Policy: one scheduling design, as a factory for its roles. The Policy
// object holds only configuration (its parsed parameters); all state lives in
// the roles it makes, which talk only by messages (see roles.h). The platform
// builds one Policy per run, then asks it for its roles.
//
// PolicyInfo describes a policy for the registry: its name, a one-line
// description, its parameters and a function that builds it. Adding a policy
// is one folder under src/policy/ that defines a PolicyInfo, plus one line in
// registry.cc; nothing in the engine changes (docs/policies.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/job_view.h"
#include "policy/params.h"
#include "policy/roles.h"

namespace weft::policy {

class Policy {
 public:
  virtual ~Policy() = default;

  // What the policy may know about jobs (enforced by JobView).
  virtual Knowledge knowledge() const = 0;
  // overbooked_by_design: the resources the policy may reserve beyond a
  // machine's capacity (DAGPS: cpu, disk and net; a static-slot scheduler may
  // also over-commit memory). The engine and the checker allow it for those
  // resources only; the execution model charges for it (oversubscribed
  // resources are shared or slow tasks down; memory beyond capacity fails
  // the newest tasks, as an OOM killer would).
  virtual ResourceMask overbooked_by_design() const { return 0; }
  // overbooked: those, and the resources the run's `fit` parameter leaves
  // out of placement (unfitted: a policy that fits tasks by cpu and memory
  // only, as YARN's Capacity Scheduler does, lets disk and network contend).
  ResourceMask overbooked() const { return overbooked_by_design() | unfitted_; }
  // overbooking: some resource may be overbooked (summary.json's flag).
  bool overbooking() const { return overbooked() != 0; }
  // unfitted: the resources `fit` leaves out (0: every resource is fitted).
  ResourceMask unfitted() const { return unfitted_; }
  void set_unfitted(ResourceMask unfitted) { unfitted_ = unfitted; }
  // Number of cluster scheduler replicas (Sparrow runs several).
  virtual uint32_t num_schedulers() const { return 1; }

  virtual std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t replica) = 0;
  // Job managers and node agents are optional: return nullptr for none (the
  // answer must be the same for every job, resp. every machine).
  virtual std::unique_ptr<JobManager> MakeJobManager(Context& /*ctx*/, JobId /*job*/) { return nullptr; }
  virtual std::unique_ptr<NodeAgent> MakeNodeAgent(Context& /*ctx*/, MachineId /*machine*/) { return nullptr; }
  virtual bool has_job_managers() const { return false; }
  virtual bool has_node_agents() const { return false; }

 private:
  ResourceMask unfitted_ = 0;
};

struct PolicyInfo {
  std::string name;
  std::string description;  // one line
  std::string source;       // where the design comes from (paper, section)
  std::vector<ParamSpec> params;
  std::function<absl::StatusOr<std::unique_ptr<Policy>>(const Params&)> make;
};

}  // namespace weft::policy
