// File: runtime/scheduler/job_intake.h
//
// How a submitted workload becomes jobs of the live cluster. The whole
// submission is parsed once and validated by the same reader as `weft
// validate` (FORMATS §1) before anything is kept; then each typed job is
// re-targeted at the nodes that really exist (trace/workload_reader.h,
// RetargetJob): locality names that are not a node are dropped (the
// workload's own cluster section is ignored), and the job must fit some
// node. Each job is journaled as its JSON object, written once here, and
// rebuilt from it after a restart (BuildJob). What the scheduler keeps in
// memory and exports is the job's export form, also written once here
// (ExportForm). Thread-safe: plain functions.
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

struct LiveJob {
  Job job;
  std::string user;  // the user's name; the caller maps it to its own ids
};

// SubmittedJob: one job of a submission, typed and as text.
struct SubmittedJob {
  LiveJob live;              // read against the live cluster
  std::string journal_json;  // its JSON object, locality re-targeted: what the journal keeps
  std::string export_json;   // ExportForm of it: what the job table keeps and Export splices
};

// ParseSubmission parses and validates `workload_text` once and returns its
// jobs re-targeted at `live` (see the file comment). InvalidArgument with
// the validator's one-line message otherwise.
absl::StatusOr<std::vector<SubmittedJob>> ParseSubmission(std::string_view workload_text, const Cluster& live);

// BuildJob reads one job object (from the journal, or a node agent's job
// description) against the live cluster.
absl::StatusOr<LiveJob> BuildJob(const nlohmann::json& job, const Cluster& live);

// ExportForm: a job's object as the export's workload has it: arrival 0
// (arrivals are in the job rows) and no commands (results do not need them,
// and a renamed job, NAME#ID, must not trip the rules for names a command
// substitutes, model/names.h). Compact JSON with sorted keys, as nlohmann
// dumps it.
std::string ExportForm(nlohmann::json job);

// RenameExportForm: `export_json` (an ExportForm of the job named `name`)
// with the job named `new_name`, by splicing the text: the name is the
// first "name" key of the text, since the keys that sort before it
// (arrival, deadline, memory_estimate) hold numbers.
std::string RenameExportForm(const std::string& export_json, const std::string& name, const std::string& new_name);

}  // namespace weft::runtime
