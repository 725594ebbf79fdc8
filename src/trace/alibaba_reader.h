// File: trace/alibaba_reader.h
//
// Turns Alibaba cluster-trace-v2018 batch_task rows (alibaba_rows.h) into a
// weft workload (FORMATS.md section 1): one weft job per trace job, one
// stage per trace task, one weft task per instance.
//
//  - DAG: from the task names (alibaba_task_name.h); an edge is a barrier,
//    as the trace documents ("any instance of task-2 cannot be started before
//    all the instances of task-1 are completed"). A parent number written
//    twice counts once. Stages are listed parents first, by task number.
//  - tasks: instance_num.
//  - duration of each instance, the first of these the row has:
//    avg_instance_duration (mean instance run time, ERDOS medium_filtered),
//    duration (ERDOS's expected task duration), end_time - start_time (the
//    native table: the task's whole span, an upper bound for an instance);
//    rounded to milliseconds and raised to at least 1 s, the trace's
//    resolution (a 0 s span means "under a second").
//  - demand: cpu = plan_cpu / 100 cores; mem = plan_mem, which the trace
//    gives as a percentage of one machine's memory, so the cluster's machines
//    have `machine_mem` = 100 by default. Alibaba 2018 machines have 96 cores.
//  - arrival: the job's earliest start_time, minus the earliest among the
//    jobs written (so the first arrives at 0).
//
// Rows the file format allows but that make a job unusable skip the whole
// job, counted per reason in AlibabaReport (the published data has all of
// these; see ../shared/data/README.md): a task not Terminated, a malformed
// task name, a missing or invalid number (instance_num not a whole number
// >= 1, plan_cpu <= 0, no start or duration), two tasks with one number, a
// parent number that is no task of the job, a dependency cycle, a demand
// larger than a machine. Rows that break the file format are errors from
// the row reader instead (FILE:LINE). Thread-safe: no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"
#include "trace/alibaba_rows.h"

namespace weft {

struct AlibabaOptions {
  uint64_t max_jobs = 0;    // 0: every usable job; else a uniform sample of this many
  uint64_t seed = 1;        // the sample's seed
  uint64_t min_tasks = 1;   // leave out jobs with fewer tasks (instances summed over stages)
  uint64_t min_stages = 1;  // leave out jobs with fewer stages
  uint32_t machines = 1;    // the written cluster: `machines` identical machines, one rack
  double machine_cpu = 96;  // cores per machine
  double machine_mem = 100; // memory per machine, in plan_mem's unit (percent of an Alibaba machine)
};

enum class AlibabaSkip : int {
  kNotTerminated,
  kBadName,
  kBadValue,
  kDuplicateTask,
  kUnknownParent,
  kCycle,
  kTooLarge,
  kNumReasons,
};

// A job that cannot be used: why, and the row that showed it.
struct AlibabaJobSkip {
  AlibabaSkip why;
  uint64_t line;
};

// A usable job: its stages as weft JSON, parents first; arrival_s is the
// trace's (ConvertAlibabaRows counts arrivals from the earliest job kept).
struct AlibabaJobDraft {
  std::string name;
  double arrival_s = 0;
  nlohmann::json stages;
  uint64_t tasks = 0;
  size_t num_stages = 0;
};

struct AlibabaReport {
  static constexpr int kReasons = static_cast<int>(AlibabaSkip::kNumReasons);
  uint64_t rows = 0;
  uint64_t jobs = 0;         // distinct job names read
  uint64_t usable = 0;       // jobs not skipped
  uint64_t too_small = 0;    // usable jobs left out by min_tasks / min_stages
  uint64_t written = 0;      // jobs in the workload
  std::array<uint64_t, kReasons> skipped{};
  std::array<std::string, kReasons> example;  // the first skipped job per reason: "j_1 (line 7)"

  // Count: one job skipped, the first per reason kept as the example.
  void Count(const AlibabaJobSkip& skip, std::string_view job);
  uint64_t TotalSkipped() const;
  // Summary is one line: rows, jobs, what was skipped and why, what was written.
  std::string Summary() const;
};

struct AlibabaConversion {
  nlohmann::json document;  // the workload as weft JSON
  Workload workload;        // the same, parsed and validated by the weft reader
  AlibabaReport report;
};

// BuildAlibabaJob checks one job's rows (all of them, in file order) and
// builds its stages, or says why the job cannot be used.
std::variant<AlibabaJobDraft, AlibabaJobSkip> BuildAlibabaJob(const std::vector<const AlibabaTaskRow*>& rows,
                                                              const AlibabaOptions& options);

// AlibabaMachineGroup: the cluster's one group of `machines` machines.
nlohmann::json AlibabaMachineGroup(const AlibabaOptions& options);

// ConvertAlibabaRows builds the workload. Fails (InvalidArgument) on bad
// options or when no job is left to write.
absl::StatusOr<AlibabaConversion> ConvertAlibabaRows(const std::vector<AlibabaTaskRow>& rows,
                                                     const AlibabaOptions& options);

// ConvertAlibabaFile reads `path` (either layout) and converts it.
absl::StatusOr<AlibabaConversion> ConvertAlibabaFile(const std::string& path, const AlibabaOptions& options);

}  // namespace weft
