// File: metrics/timeline_writer.h
//
// The cluster over time, at a fixed step: Timeline integrates what every
// attempt and container held (allocation), what attempts really used, how
// many attempts ran and how many waited (ready, not yet started), into bins
// of `step` starting at the workload's first arrival; TimelineWriter is the
// RunObserver that feeds it from a run's records and writes DIR/timeline.csv
// (docs/report.md describes the columns):
//
//   time,running,waiting,cpu_alloc,mem_alloc,disk_alloc,net_alloc,cpu_used,mem_used,disk_used,net_used
//
// `time` is the bin's start (seconds, the run's clock); every other column is
// the bin's time-weighted mean: attempts for running and waiting, a fraction
// of the cluster's capacity for the resources. The last bin ends at the run's
// end (the last job or attempt end), so it may be shorter than the step, and
// summing column x bin length over the bins, divided by the makespan, gives
// summary.json's utilization (alloc) and used figures exactly as RunMetrics
// computes them (same allocation rule: tasks launched on machines plus
// containers while held; tasks inside a container do not count again).
//
// Records may come in any order (the runtime export replays them per
// scheduler replica), so the bins stay in memory until Finish: 20 doubles a
// bin, 160 bytes. At most kMaxBins (131,072: 21 MB) are kept: a run longer
// than that many steps (a day and a half at one second; or jobs spaced far
// apart, as the lone-DAG studies do) doubles the step, merging bins pairwise,
// as often as needed, so timeline.csv's step is the requested one times a
// power of two. Each record costs O(1) whatever its length (partial end bins
// plus a difference array for the whole bins between). A task with phases
// counts its memory over the attempt and each phase's resource over the
// phase (OnPhaseEnd), as RunMetrics does.
// Not thread-safe.
#pragma once

#include <array>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/workload.h"

namespace weft {

class Timeline {
 public:
  // What one interval contributes, per unit of time.
  static constexpr int kRunning = 0;
  static constexpr int kWaiting = 1;
  static constexpr int kAlloc = 2;                      // kAlloc + resource
  static constexpr int kUsed = kAlloc + kNumResources;  // kUsed + resource
  static constexpr int kNumQuantities = kUsed + kNumResources;
  using Rates = std::array<double, kNumQuantities>;

  static constexpr size_t kMaxBins = size_t{1} << 17;

  // `origin_us`: the first bin's start; `step_us` > 0; `max_bins` >= 1: the
  // step doubles rather than keep more bins.
  Timeline(TimeUs origin_us, TimeUs step_us, size_t max_bins = kMaxBins);

  // Add adds `rates` over [start_us, end_us) (clipped at the origin).
  void Add(TimeUs start_us, TimeUs end_us, const Rates& rates);

  // Bin is one row: its start, its length, and the mean of each quantity.
  struct Bin {
    TimeUs start_us = 0;
    TimeUs length_us = 0;
    Rates mean{};
  };
  // Bins returns the rows from the origin up to `end_us` (the last one cut
  // there; the step doubled first if that many rows would exceed max_bins);
  // none when end_us <= origin.
  std::vector<Bin> Bins(TimeUs end_us);

  TimeUs step_us() const { return step_us_; }

 private:
  // Reach makes room for bins up to the one holding `end_us` - 1, doubling
  // the step while they would be more than max_bins; returns that bin.
  size_t Reach(TimeUs end_us);
  // Coarsen doubles the step: whole-bin rates become integrals, bins merge in pairs.
  void Coarsen();

  TimeUs origin_us_;
  TimeUs step_us_;
  size_t max_bins_;
  // Per bin: integrals of the cut pieces (rate x microseconds), and a
  // difference array of the rates of intervals covering whole bins.
  std::vector<Rates> partial_;
  std::vector<Rates> rate_delta_;
};

class TimelineWriter final : public RunObserver {
 public:
  static constexpr TimeUs kDefaultStepUs = kUsPerSecond;

  // Open checks that `dir` is writable (it must exist) and that step_us > 0.
  // With `compress`, the file is timeline.csv.zst (metrics/result_file.h).
  // The bins start at `origin_us`, else at the workload's first arrival
  // (give it when the workload does not hold every job yet: a JobSource's).
  static absl::StatusOr<std::unique_ptr<TimelineWriter>> Open(const std::string& dir, const Workload& workload,
                                                              TimeUs step_us = kDefaultStepUs, bool compress = false,
                                                              std::optional<TimeUs> origin_us = std::nullopt);
  // InMemory: a writer that keeps its rows for Rows() and has no file (the
  // Python module builds its timeline DataFrame from them). step_us > 0.
  static std::unique_ptr<TimelineWriter> InMemory(const Workload& workload, TimeUs step_us, TimeUs origin_us);

  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnPhaseEnd(const PhaseRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  void OnContainerEnd(const ContainerRecord& record) override;
  void OnRunEnd(TimeUs end_us) override;

  // Finish writes timeline.csv under a temporary name and renames it into
  // place; the run ends at the last job or attempt end seen (else at
  // OnRunEnd's time), as RunMetrics's makespan does.
  absl::Status Finish();

  // Rows: timeline.csv's rows as numbers, unrounded: each bin's start and
  // length, its mean running and waiting attempts, and its resources as
  // fractions of the cluster's capacity. Call once, after the run.
  std::vector<Timeline::Bin> Rows();

 private:
  TimelineWriter(std::string dir, const Workload& workload, TimeUs origin_us, TimeUs step_us);

  std::string dir_;
  const Workload& workload_;
  bool compress_ = false;
  Timeline timeline_;
  TimeUs last_end_us_ = 0;
  TimeUs run_end_us_ = 0;
};

// FirstArrivalUs: the earliest job arrival of `workload` (0 when it has none).
TimeUs FirstArrivalUs(const Workload& workload);

}  // namespace weft
