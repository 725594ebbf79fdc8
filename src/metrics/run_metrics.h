// File: metrics/run_metrics.h
//
// RunMetrics: a RunObserver that computes a run's headline numbers as the
// records stream past (so it needs memory per job, not per task):
//   - job completion times (avg, median, p95), makespan (last job end minus
//     first arrival), slowdown (JCT / critical path), deadlines met;
//   - per resource: utilization (allocated resource-time over capacity x
//     makespan, which is Ursa's SE = X / Y), real use over capacity x makespan,
//     and UE = used / allocated (Ursa section 5: X allocated, Y capacity x
//     makespan, Z used; SE = X/Y, UE = Z/X);
//   - scheduling delay (start - ready, every attempt): mean and p95;
//   - locality of successful attempts (node, rack, remote, none) and, only
//     when the workload's locality cost is on, the time they spent reading
//     their input remotely (model/locality.h);
//   - Jain's fairness index across users of their mean slowdown;
//   - how far the run is from the lower bounds of DAGPS section 6
//     (metrics/lower_bounds.h): per job JCT / NewLB of the job alone on the
//     whole cluster (>= 1 for any schedule within capacity; its median, p95,
//     mean, min and max over succeeded jobs), and makespan / makespan_lb where
//     makespan_lb = max(max over jobs (arrival + NewLB) - first arrival,
//     total work / cluster capacity) bounds the makespan of the whole
//     workload. Each job's bounds are computed once, when it ends (jobs that
//     never end, at the end of the run): one pass over its stages, and over
//     its tasks only for stages with per-task durations.
// Allocation counts the demands of tasks launched directly on machines and
// the sizes of containers for as long as they are held (tasks inside a
// container do not count again). Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "metrics/histogram.h"
#include "metrics/lower_bounds.h"
#include "metrics/records.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"

namespace weft {

struct RunSummary {
  uint64_t jobs = 0;
  uint64_t jobs_failed = 0;
  uint64_t tasks = 0;     // tasks finished ok
  uint64_t attempts = 0;  // all attempts, any outcome
  uint64_t attempts_failed = 0;
  uint64_t attempts_killed = 0;
  double makespan = 0;  // seconds
  double avg_jct = 0;
  double median_jct = 0;
  double p95_jct = 0;
  double avg_slowdown = 0;
  double median_slowdown = 0;
  uint64_t deadlines = 0;
  uint64_t deadlines_met = 0;
  std::array<double, kNumResources> utilization{};  // = SE
  std::array<double, kNumResources> used{};         // used / (capacity x makespan)
  std::array<double, kNumResources> ue{};
  double delay_mean = 0;  // seconds
  double delay_p95 = 0;
  std::array<double, 4> locality{};  // fractions of ok attempts: none, node, rack, remote
  // Only with the locality cost on (written only then, so outputs without it
  // do not move): seconds ok attempts spent on remote reads, and how many paid.
  bool locality_cost = false;
  double remote_read_s = 0;
  uint64_t remote_read_tasks = 0;
  double jain_fairness = 1;
  // Lower-bound ratios (see the file comment); 0 when undefined.
  double makespan_lb = 0;  // seconds
  double makespan_ratio = 0;
  double median_job_ratio = 0;
  double p95_job_ratio = 0;
  double mean_job_ratio = 0;
  double min_job_ratio = 0;
  double max_job_ratio = 0;

  // ToJson renders the fields named as in FORMATS.md section 2 (plus extras).
  nlohmann::ordered_json ToJson() const;
};

class RunMetrics final : public RunObserver {
 public:
  explicit RunMetrics(const Workload& workload);

  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnFlowEnd(const FlowRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  void OnContainerEnd(const ContainerRecord& record) override;
  void OnRunEnd(TimeUs end_us) override;

  // Per-job results, in the order jobs ended.
  struct JobResult {
    JobId job;
    double jct = 0;       // seconds
    double slowdown = 0;  // jct / critical path
    double newlb = 0;     // seconds: the job's NewLB alone on the cluster
    double lb_ratio = 0;  // jct / newlb (0 when newlb is 0)
    bool succeeded = true;
  };
  const std::vector<JobResult>& jobs() const { return jobs_; }
  const RunSummary& summary() const { return summary_; }

 private:
  // Bound computes and records a job's bounds once.
  const JobBounds& Bound(JobId job);

  const Workload& workload_;
  BoundCapacity bound_capacity_;
  WorkloadBound workload_bound_;
  std::vector<uint8_t> bounded_;  // per job: added to workload_bound_
  JobBounds last_bounds_;
  std::vector<JobResult> jobs_;
  std::array<long double, kNumResources> allocated_{};  // unit-seconds
  std::array<long double, kNumResources> used_{};
  LogHistogram delay_us_;
  std::array<uint64_t, 4> locality_{};
  TimeUs remote_read_us_ = 0;
  uint64_t remote_read_tasks_ = 0;
  TimeUs last_end_us_ = 0;
  RunSummary summary_;
};

}  // namespace weft
