// File: trace/workload_reader.h
//
// Reads and validates weft's own workload format (FORMATS.md section 1). Every
// rule of the format is checked before a Workload is returned, so code that
// receives one never sees a cycle, an unknown parent or a task that fits no
// machine. Errors are InvalidArgument with a one-line message that names the
// job, the stage and the field, e.g.
//   job "q3-0" stage "agg": "after" names unknown stage "scann"
// Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"

namespace weft {

// The most tasks one workload may hold; beyond this the simulator's per-task
// state would not fit in memory, so the reader refuses with a clear message
// instead of failing on allocation.
inline constexpr uint64_t kMaxWorkloadTasks = 500'000'000;

// ParseWorkload parses workload text (JSON): ParseWorkloadJson, then
// ReadWorkloadJson.
absl::StatusOr<Workload> ParseWorkload(std::string_view text);

// ParseWorkloadJson parses the text alone: InvalidArgument for an empty
// file, JSON that does not parse, or a key twice in one object.
absl::StatusOr<nlohmann::json> ParseWorkloadJson(std::string_view text);
// ReadWorkloadJson checks every rule of the format on a parsed document
// and builds its Workload. A caller that needs both the document and the
// Workload (the runtime's submit: it journals each job's object) parses
// once and reads once.
absl::StatusOr<Workload> ReadWorkloadJson(const nlohmann::json& doc);

// RetargetJob moves `job`, read from its object `j` against `from`, onto
// the cluster `to`, as reading `j` against `to` would (with `j`'s locality
// names that are not machines of `to` dropped): its locality becomes `to`'s
// machines, a duration made of phases is timed on `to`, and every check
// that depends on the cluster is made again, with the reader's messages
// and in its order. The runtime's submit checks the jobs of a workload
// against the live nodes this way, without reading them a second time.
absl::Status RetargetJob(Job& job, const nlohmann::json& j, const Cluster& from, const Cluster& to);

// ReaderCounts: how many JSON texts (ParseWorkloadJson) and job objects
// (every job read, by any entry point) this process's reader has read
// since it started; a test checks that a submission is read once.
struct ReaderCounts {
  uint64_t texts = 0;
  uint64_t jobs = 0;
};
ReaderCounts ReaderCountsSoFar();

// ReadWorkloadFile reads and parses the file at `path`. Missing files,
// directories and unreadable files are InvalidArgument errors too.
absl::StatusOr<Workload> ReadWorkloadFile(const std::string& path);

// WorkloadBuilder builds a Workload one job at a time with exactly the
// checks and conversions ParseWorkload applies, so a trace replayed through
// it gives the same Workload as its converted JSON read back (trace/).
// Call SetCluster once, then AddJob per job (objects as in "jobs"[]).
class WorkloadBuilder {
 public:
  // SetCluster reads {"machines": [...]}, the value of the file's "cluster".
  absl::Status SetCluster(const nlohmann::json& cluster);
  // SetCluster with a cluster already built (the runtime's live nodes).
  void SetCluster(Cluster cluster) { w_.cluster = std::move(cluster); }
  absl::Status AddJob(const nlohmann::json& job);
  // BuildJob reads one job with AddJob's checks but keeps neither the job
  // nor its name (the caller checks names are unique): a streamed replay's
  // jobs (trace/trace_stream.h). New users are added to workload().users.
  absl::StatusOr<Job> BuildJob(const nlohmann::json& job);
  const Workload& workload() const { return w_; }
  Workload Take() { return std::move(w_); }

 private:
  Workload w_;
  absl::flat_hash_map<std::string, UserId> users_;
  absl::flat_hash_set<std::string> job_names_;
  uint64_t total_tasks_ = 0;
};

}  // namespace weft
