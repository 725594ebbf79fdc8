// File: trace/task_groups.h
//
// BagStages: turns a job's independent tasks (Google's bags of tasks) into
// weft stages, two ways (TraceOptions::stage_per_job):
//   - by demand (the default): tasks grouped by their exact demand, one stage
//     per distinct demand, no edges between them. Every stage has one demand,
//     which policies that read a stage's demand (JobView::demand) see exactly,
//     and nothing is stored per task but the durations;
//   - one stage per job: the tasks in index order, each with its own demand
//     (`demands`) and, where measured, use (`usages`), the stage's demand the
//     largest of them (docs/workload-format.md). Faithful to the trace's job,
//     at the cost of memory per task and of a stage demand that is a peak.
// Either way each task keeps its own duration ("durations"), and the job is a
// bag of independent tasks. Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <optional>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "trace/trace_source.h"

namespace weft {

struct TraceTask {
  int64_t index = 0;       // orders the tasks within a stage
  int64_t duration_us = 0; // >= 1
  double cpu = 0, mem = 0; // demand
  bool has_usage = false;
  double cpu_used = 0, mem_used = 0;  // mean use, when measured
};

inline constexpr std::string_view kNoteSplitByDemand = "jobs split into stages by demand (tasks of one job differ in demand)";

inline constexpr std::string_view kNoteStagePerJob = "jobs as one stage with per-task demands (tasks of one job differ in demand)";

// BagStages sorts `tasks` and returns the stages; counts a job split or given
// per-task demands in `report`. With stages by demand, a stage's usage is the
// mean of its measured tasks, capped at its demand; with a stage per job,
// each measured task's use is its own, capped at its demand, and an
// unmeasured task's is its demand.
nlohmann::json BagStages(std::vector<TraceTask>& tasks, bool stage_per_job, TraceReport& report);

// GroupsByCapacity: machine groups (MachineGroup JSON), one per distinct
// (cpu, mem) capacity of `machines` (id -> capacity), largest first; groups
// are named g0-, g1-, ... so machines are g0-0, g0-1, ...
nlohmann::json GroupsByCapacity(const std::map<int64_t, std::pair<double, double>>& machines);

// Seconds: microseconds as the seconds value written to JSON (exact on read back).
inline double Seconds(int64_t us) { return static_cast<double>(us) / 1e6; }

}  // namespace weft
