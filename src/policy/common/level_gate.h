// File: policy/common/level_gate.h
//
// LevelGate: holds back a job's ready tasks until their "level" opens. A
// policy splits each job's stages into numbered levels (every dependency
// going from a lower level to a higher one) and runs the levels one after
// another: tasks of level L may start only when every task of the job's
// levels below L has finished. This is the strip structure of StripPart
// (Augustine, Banerjee and Irani, SPAA'06, the DAGPS 001_a7e14c78d79bdb00.txt
// section 8.3 baseline: "partition tasks into levels such that all
// dependencies go across levels") and of any policy that schedules a DAG
// phase by phase.
//
// The owner calls Admit for every ready range (true: its level is open, hand
// it to the scheduler now; false: the gate keeps it), and Finished for every
// successful task end, which returns the ranges released when a level
// completes (the next non-empty level opens). A retried task comes back
// through Admit; its level is still open because it has not finished.
// Not thread-safe; owned by one role.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "policy/job_view.h"
#include "policy/roles.h"

namespace weft::policy {

class LevelGate {
 public:
  // AddJob records `job`'s level per stage (one entry per stage). Levels are
  // small integers; empty levels are skipped.
  void AddJob(const JobView& job, std::vector<uint32_t> stage_level);
  bool Knows(JobId job) const { return jobs_.contains(job.value()); }
  void Forget(JobId job) { jobs_.erase(job.value()); }

  // Admit: true when the range's level is open (or the job is unknown).
  bool Admit(const TaskRange& range);
  // Finished: one task of `task`'s stage finished successfully; returns the
  // ranges that became admissible.
  std::vector<TaskRange> Finished(const TaskRef& task);

  // OpenLevel: the job's open level (for tests and dumps).
  uint32_t OpenLevel(JobId job) const;
  uint32_t Level(JobId job, uint32_t stage) const;

 private:
  struct JobLevels {
    std::vector<uint32_t> stage_level;
    std::vector<uint64_t> left;                 // per level, tasks not finished
    std::vector<std::vector<TaskRange>> parked;  // per level
    uint32_t open = 0;
  };
  absl::flat_hash_map<uint32_t, JobLevels> jobs_;
};

}  // namespace weft::policy
