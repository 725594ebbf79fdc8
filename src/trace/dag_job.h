// File: trace/dag_job.h
//
// DagStages: checks a job's stage graph as a trace gives it (each stage with
// its children's ids) and writes the stages as weft JSON, parents first,
// with barrier "after" edges. Shared by the readers of stage-DAG traces
// (decima-tpch, tpch-cloudlab, google-2019 workflows). Thread-safe.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"
#include "trace/trace_source.h"

namespace weft {

struct DagStage {
  std::string id;                     // unique within the job
  std::vector<std::string> children;  // ids of stages that wait for this one
  nlohmann::json stage;               // weft stage without "name" and "after"
};

enum class DagProblem { kUnknownChild, kDuplicateStage, kCycle };

// DagStages returns the stages (named by id, listed parents first, ties in
// the given order) or the problem that makes the job unusable.
std::variant<nlohmann::json, DagProblem> DagStages(const std::vector<DagStage>& stages);

inline constexpr std::string_view kSkipUnknownChild = "jobs with a dependency on a missing stage";
inline constexpr std::string_view kSkipDuplicateStage = "jobs with two stages of one id";
inline constexpr std::string_view kSkipCycle = "jobs with a dependency cycle";

std::string_view DagProblemReason(DagProblem problem);

// EmitDagJob passes `job` (name and job fields, no stages) on to `out` with
// DagStages(stages) as its stages, or counts the job as skipped for its problem.
absl::Status EmitDagJob(TraceEmitter& out, nlohmann::json job, const std::vector<DagStage>& stages, double arrival_s);

}  // namespace weft
