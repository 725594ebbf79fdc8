// File: trace/task_groups.h
//
// StagesByDemand: turns a job's independent tasks (Google's bags of tasks)
// into weft stages. weft stages share one demand (per-task demand overrides
// are not in the workload model yet), so tasks are grouped by their exact
// demand, one stage per distinct demand, with no edges between stages: the
// job is still a bag of independent tasks. Each task keeps its own duration
// ("durations"). Thread-safe: no shared state.
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

// StagesByDemand sorts `tasks` and returns the stages; counts a split job in
// `report`. Stage usage is the mean of the measured tasks, capped at demand.
nlohmann::json StagesByDemand(std::vector<TraceTask>& tasks, TraceReport& report);

// GroupsByCapacity: machine groups (MachineGroup JSON), one per distinct
// (cpu, mem) capacity of `machines` (id -> capacity), largest first; groups
// are named g0-, g1-, ... so machines are g0-0, g0-1, ...
nlohmann::json GroupsByCapacity(const std::map<int64_t, std::pair<double, double>>& machines);

// Seconds: microseconds as the seconds value written to JSON (exact on read back).
inline double Seconds(int64_t us) { return static_cast<double>(us) / 1e6; }

}  // namespace weft
