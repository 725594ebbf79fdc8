// File: policy/ursa/job_manager.h
//
// UrsaJobManager: Ursa's job manager (002_872a20c16a9dbee0.txt sections
// 4.1.3, 4.2.1), shared by `ursa` and `ursa-yarn`. It keeps the job's
// remaining per-resource work R (initialised from every task's monotasks:
// the paper's "historical information"; lowered as node agents report
// monotask ends, and by a whole task's work when a task without phases
// ends) and reports it (kRemaining); it forwards ready tasks to the
// scheduler (kReady), each time with the memory estimate of the job's
// outstanding ready tasks (kEstimate, admission.h's rule with `m2i`).
// Placement is the scheduler's. Not thread-safe (one role).
#pragma once

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "policy/common/monotasks.h"
#include "policy/roles.h"

namespace weft::policy::ursa {

class UrsaJobManager final : public JobManager {
 public:
  UrsaJobManager(Context& ctx, JobId job, double m2i, Address scheduler);

  void OnStart() override;
  void OnTasksReady(const TaskRange& tasks) override;
  void OnTaskEnded(const TaskEnd& end) override;
  void OnMessage(const Address& from, const Message& message) override;

 private:
  void SendRemaining();

  double m2i_;
  Address scheduler_;
  MonotaskWork remaining_{};
  // Forget drops every entry of a task that ended well.
  void Forget(const TaskRef& t);

  // Tasks reported ready and not yet ended well, with their input (MB) and
  // stage memory demand (GB), for the job's memory estimate; in the order
  // they were reported (a task retried after a failure is there twice), so
  // that the estimate sums them in that order. An ended task's entries are
  // marked dead and the vector is compacted when most are: ending a task
  // costs a lookup, not a scan of the job's outstanding tasks.
  struct Outstanding {
    TaskRef task;
    double input_mb = 0;
    double demand_gb = 0;
    bool live = true;
  };
  std::vector<Outstanding> outstanding_;
  size_t dead_ = 0;
  // (stage, index) -> the task's entries in outstanding_.
  absl::flat_hash_map<uint64_t, absl::InlinedVector<uint32_t, 1>> entries_;
};

}  // namespace weft::policy::ursa
