// File: policy/ursa/scheduler.h
//
// UrsaScheduler: Ursa's centralized scheduler (002_872a20c16a9dbee0.txt
// section 4.2.2).
//   - Admission by memory, in submission order (admission.h), from the job
//     managers' estimates (kEstimate); an admitted job's reservation follows
//     its latest estimate and is returned when the job ends.
//   - Placement in batches every `interval`: the ready tasks of admitted
//     jobs (kReady), grouped by stage, are placed by Algorithm 1
//     (placement.h) with EPT = ept_factor x interval: every stage is scored
//     on a snapshot of the workers, the best stage's plan (its score plus the
//     job order's bonus, job_order.h) is launched, and the others are scored
//     again, until no stage can place anything. APT comes from the work of
//     the monotasks in each worker's queues, over the rates the node agents
//     measured: a placed task's first monotask enters at once, each next one
//     when the node reports the one before it done (kMonotaskDone), and a
//     task's work leaves when it is done or gone (kTaskGone); idle cores from
//     the machine's measured cpu use.
//   - placement=tetris|capacity (Table 4's ablation) replace Algorithm 1: the
//     stages are served in job order, each task on the worker where its
//     peak demand is best aligned with what the peaks of the tasks placed
//     and not ended leave free (Tetris, common/packing.h), or where the most
//     is left free (YARN's capacity scheduler, the sum of the free fractions);
//     a worker whose free peak room does not hold the task is not a
//     candidate, so resources return only when whole tasks end.
// Not thread-safe (one role).
#pragma once

#include <deque>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/roles.h"
#include "policy/ursa/job_order.h"
#include "policy/ursa/placement.h"

namespace weft::policy::ursa {

enum class PlacementKind { kUrsa, kTetris, kCapacity };

struct SchedulerConfig {
  JobOrder order = JobOrder::kEjf;
  PlacementKind placement = PlacementKind::kUrsa;
  TimeUs interval_us = 200'000;
  double ept_factor = 1.2;
  double weight = 1;  // W
};

class UrsaScheduler final : public ClusterScheduler {
 public:
  UrsaScheduler(Context& ctx, const SchedulerConfig& config);

  void OnJobArrived(JobId job) override;
  void OnJobFinished(JobId job, bool succeeded) override;
  void OnMachineDown(MachineId machine) override;
  void OnMessage(const Address& from, const Message& message) override;
  void OnTimer(uint64_t tag) override;

 private:
  struct Pending {
    uint32_t index = 0;
    TaskLoad load;
  };
  struct JobState {
    bool admitted = false;
    bool estimated = false;
    double estimate_gb = 0;
    MonotaskWork remaining{};
    std::map<uint32_t, std::vector<Pending>> pending;  // by stage
  };
  struct Worker {
    MonotaskWork assigned{};  // work of monotasks in its queues (their input exists) and not done
    MonotaskWork rate{};
    Resources peak_held;      // tetris/capacity: peaks of tasks not ended
  };
  struct Placed {
    MachineId machine;
    MonotaskWork left{};    // work of its monotasks not done
    MonotaskWork queued{};  // the part of `left` in the worker's queues (counted in Worker::assigned)
    Resources peak;
  };

  // StateOf: the job's state, created (and queued for admission) when first
  // heard of; nullptr for a finished job.
  JobState* StateOf(JobId job);
  void TryAdmit();
  void EnsureTimer();
  bool HasPending() const;
  std::vector<WorkerSnapshot> Snapshot() const;
  double Rank(JobId job) const;
  double Bonus(JobId job) const;
  bool Place(const TaskRef& t, const TaskLoad& load, uint32_t worker);
  void BatchUrsa();
  void BatchPeak();
  void Forget(const TaskRef& t);

  SchedulerConfig config_;
  double ept_s_;
  std::map<uint32_t, JobState> jobs_;  // by job id: deterministic order
  std::deque<JobId> waiting_;          // not admitted, in submission order
  double reserved_gb_ = 0;
  size_t admitted_ = 0;
  std::vector<Worker> workers_;
  std::map<TaskRef, Placed> placed_;
  bool timer_armed_ = false;
};

}  // namespace weft::policy::ursa
