// File: policy/ras/scheduler.h
//
// RasScheduler: the JobTracker side of RAS (Polo et al., Middleware 2011,
// §3.2-3.5) as weft's cluster scheduler role.
//   - Job Status Updater and Job Completion Time Estimator (§3.2): on every
//     attempt end, the job's pending counts and the mean length of its map
//     and reduce tasks (learned from finished attempts; before the first, what
//     the knowledge level tells, JobView::EstimatedDuration). s_req follows
//     from the goal (utility.h, RequiredMapSlots); a job without a goal gets
//     "as soon as possible" (goal = now: every pending map is required).
//   - Placement control loop (§3.4): every `period`, from the placement
//     running now, Algorithm 1 (placement.h) with the jobs' profiles: maps
//     the map stage's demand; reducers the shuffle profile while the job's
//     map phase runs (memory, plus the shuffle I/O of parallel_copies copies
//     scaled down while fewer maps are placed), the reduce profile once every
//     remaining map is placed and the mean map length is at most `period`
//     (line 26: the map phase ends within the cycle). Each job's utility is
//     recorded (series "utility", series.csv).
//   - Task Scheduler (§3.5): whenever tasks end or become ready and after each
//     cycle, on every machine the placement puts tasks on, starts tasks of
//     the (job, kind) pairs that run fewer tasks there than the placement
//     says, reducers first then lowest utility first, and only when the
//     task's demand fits what the machine has free: no machine is ever
//     over-committed (no overbooking), and the move from one placement to
//     the next happens as running tasks end.
// No clock, no I/O. Not thread-safe; one per run.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "policy/common/slot_scheduler.h"
#include "policy/ras/placement.h"

namespace weft::policy::ras {

struct RasConfig {
  TimeUs period_us = 10 * kUsPerSecond;
  uint32_t max_rounds = 10;
  uint32_t parallel_copies = 5;
};

class RasScheduler final : public SlotScheduler {
 public:
  RasScheduler(Context& ctx, RasConfig config) : SlotScheduler(ctx), config_(config) {}

  void OnJobArrived(JobId job) override;
  void OnJobFinished(JobId job, bool succeeded) override;

  // The last cycle's decision, for tests: jobs in arrival order.
  const std::vector<JobId>& planned_jobs() const { return planned_jobs_; }
  const Placement& placement() const { return placement_; }

 private:
  struct Learned {
    TimeUs total_us = 0;
    uint32_t count = 0;
  };
  struct JobBook {
    Learned map, reduce;
  };

  void SlotRound() override;
  void OnPolicyTimer(uint64_t tag) override;
  void OnSlotEnded(const TaskEnd& end) override;

  // Cycle runs the placement control loop once.
  void Cycle();
  PlacementJob Describe(JobId job) const;
  // MeanLength: the learned mean task length of the job's `kind` tasks, or
  // the estimate of a task of its first stage of that kind; nullopt when it
  // has no such stage.
  std::optional<double> MeanLength(JobId job, SlotKind kind) const;
  // Serve: the Task Scheduler on one machine.
  void Serve(MachineId m);

  RasConfig config_;
  std::map<uint32_t, JobBook> books_;  // by job id, active jobs
  std::vector<JobId> planned_jobs_;
  std::vector<double> utility_;  // of planned_jobs_, last cycle
  // Of planned_jobs_: each job's stages of each slot kind, in stage order
  // (a stage's kind is fixed: StageSlotKind), so that Serve, run after every
  // round, does not ask every stage its kind again.
  std::vector<std::array<std::vector<uint32_t>, kNumSlotKinds>> stages_by_kind_;
  Placement placement_;  // sparse: Serve reads only the jobs it puts on a machine
  // serving_: the machines the placement puts tasks on, by id; Serve on any
  // other starts nothing, and a large cell has far more of those.
  std::vector<MachineId> serving_;
  bool cycle_due_ = false;
  TimerId cycle_timer_ = TimerId::kNone;
};

}  // namespace weft::policy::ras
