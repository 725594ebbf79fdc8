// File: runtime/scheduler/job_intake.h
//
// How a submitted workload becomes jobs of the live cluster. The whole
// submission is validated by the same reader as `weft validate` (FORMATS §1)
// before anything is kept; then each job is re-targeted at the nodes that
// really exist: locality names that are not a node are dropped (the
// workload's own cluster section is ignored), and the job must fit some
// node. A job is journaled as its JSON object, and rebuilt from it the same
// way after a restart. Thread-safe: plain functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "model/cluster.h"
#include "model/job.h"
#include "nlohmann/json.hpp"

namespace weft::runtime {

// ClusterJson: `cluster` in the workload format's cluster section.
nlohmann::json ClusterJson(const Cluster& cluster);

// SplitSubmission validates `workload_text` and returns its jobs as JSON
// objects re-targeted at `live` (see the file comment). InvalidArgument with
// the validator's one-line message otherwise.
absl::StatusOr<std::vector<nlohmann::json>> SplitSubmission(std::string_view workload_text, const Cluster& live);

struct LiveJob {
  Job job;
  std::string user;  // the user's name; the caller maps it to its own ids
};

// BuildJob parses one job object (from SplitSubmission or the journal)
// against the live cluster.
absl::StatusOr<LiveJob> BuildJob(const nlohmann::json& job, const Cluster& live);

}  // namespace weft::runtime
