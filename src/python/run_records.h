// File: python/run_records.h
//
// RunRecords: a RunObserver that keeps a run's tasks.csv, jobs.csv and
// phases.csv rows in memory as columns (one vector per column), for the
// Python module to hand to pandas without writing or parsing CSV text. The
// columns and their values are those of the files (FORMATS.md section 2):
// times in seconds, text columns as codes into a table of names (the job's,
// stage's, machine's, outcome's), so a million rows hold no string each.
// Names are read when a record arrives, as ResultsWriter does, because a
// streamed source frees a job after its end.
// Not thread-safe: fed by one run's engine, read after it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "metrics/lower_bounds.h"
#include "metrics/records.h"
#include "model/workload.h"

namespace weft::python {

// TextColumn: one code per row into `names`.
struct TextColumn {
  std::vector<int32_t> codes;
  std::vector<std::string> names;
};

struct TaskColumns {
  TextColumn job, stage, machine, outcome, locality;
  std::vector<int64_t> task, attempt;
  std::vector<double> ready, start, end, cpu, mem, disk, net;
};

struct JobColumns {
  TextColumn job, user, outcome;
  std::vector<double> arrival, start, end, jct, newlb, newlb_ratio;
};

struct PhaseColumns {
  TextColumn job, stage, resource, machine;
  std::vector<int64_t> task, attempt, phase, completed;
  std::vector<double> start, end, held;
};

class RunRecords final : public RunObserver {
 public:
  explicit RunRecords(const Workload& workload);

  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnPhaseEnd(const PhaseRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;

  // Finish fills every text column's names; call once, after the run.
  void Finish();

  TaskColumns& tasks() { return tasks_; }
  JobColumns& jobs() { return jobs_; }
  PhaseColumns& phases() { return phases_; }

 private:
  // JobCode and StageCode intern a job's (a stage's) name once per job (stage).
  int32_t JobCode(JobId job);
  int32_t StageCode(JobId job, uint32_t stage);
  static int32_t Intern(std::vector<std::string>& names, absl::flat_hash_map<std::string, int32_t>& index,
                        const std::string& name);

  const Workload& workload_;
  BoundCapacity bound_capacity_;
  TaskColumns tasks_;
  JobColumns jobs_;
  PhaseColumns phases_;
  // Shared name tables: the task, job and phase columns index the same ones.
  std::vector<std::string> job_names_;
  std::vector<int32_t> job_code_;  // by JobId; -1 not seen yet
  std::vector<std::string> stage_names_;
  absl::flat_hash_map<uint64_t, int32_t> stage_code_;  // (job << 32 | stage)
  std::vector<std::string> machine_names_;
  std::vector<std::string> user_names_;
  absl::flat_hash_map<std::string, int32_t> user_index_;
  std::vector<std::string> resource_names_;
  absl::flat_hash_map<std::string, int32_t> resource_index_;
};

}  // namespace weft::python
