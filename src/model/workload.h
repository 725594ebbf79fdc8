// File: model/workload.h
//
// Workload: a cluster, the users, and the jobs to run on it. Built by a reader
// in trace/ and validated there; immutable afterwards.
#pragma once

#include <string>
#include <vector>

#include "model/cluster.h"
#include "model/job.h"

namespace weft {

struct Workload {
  Cluster cluster;
  std::vector<std::string> users;  // indexed by UserId
  std::vector<Job> jobs;           // indexed by JobId, in file order

  uint64_t NumTasks() const;
  size_t NumStages() const;
};

}  // namespace weft
