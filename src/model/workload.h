// File: model/workload.h
//
// Workload: a cluster, the users, and the jobs to run on it. Built by a reader
// in trace/ and validated there; immutable afterwards (but for the runtime's
// live workload, which adds jobs and frees the ones its retention compacted).
#pragma once

#include <string>
#include <vector>

#include "core/paged_store.h"
#include "model/cluster.h"
#include "model/job.h"

namespace weft {

struct Workload {
  Cluster cluster;
  std::vector<std::string> users;  // indexed by UserId
  // Indexed by JobId, in file order. Paged (core/paged_store.h) so that a
  // long-lived scheduler can free the jobs its retention compacted: a freed
  // job reads as Job{}. Nothing frees jobs in a simulation.
  PagedStore<Job> jobs;

  uint64_t NumTasks() const;
  size_t NumStages() const;
};

}  // namespace weft
