// File: runtime/scheduler/journal_recovery.h
//
// What a scheduler core recovers from its state dir on Open, as plain data:
// the dir's identity (the policy and parameters its jobs were planned under,
// the epoch its times count from, the replica it belongs to), the nodes of
// its cluster, and every job it ever accepted with the attempts the journal
// has of it, including jobs the retention compacted into the results
// archive. The core applies it (the engine, the job table); nothing here
// changes state. Thread-safe: plain functions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/cluster.h"
#include "runtime/journal.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/job_intake.h"
#include "runtime/scheduler/job_table.h"
#include "runtime/scheduler/node_slots.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

struct StateIdentity {
  std::string policy;
  std::vector<std::string> params;  // k=v
  int64_t epoch_unix_us = 0;        // the Unix time the daemon's time 0 stands for
  bool fresh = false;               // a new state dir: WriteIdentity has yet to journal it
};

// ReadIdentity: the identity in the journal's `meta`, checked against the
// flags (`policy`, empty for the journal's; `replica`): InvalidArgument for
// a dir of another policy or replica, DataLoss for damaged meta data. A new
// dir takes the flags' (fifo by default) with epoch `unix_now`.
absl::StatusOr<StateIdentity> ReadIdentity(const std::map<std::string, std::string>& meta, const std::string& policy,
                                           const std::vector<std::string>& params, const ReplicaIds& replica,
                                           const std::filesystem::path& state_dir, int64_t unix_now);
// WriteIdentity journals a fresh dir's identity (once the flags proved good,
// so a refused start leaves nothing a corrected one would trip over).
absl::Status WriteIdentity(Journal& journal, const StateIdentity& identity, const ReplicaIds& replica);

// RestoreNodes gives `slots` the journaled nodes, with their racks.
void RestoreNodes(const Recovered& r, NodeSlots& slots);

// RecoveredJob: one job, by id (= index in RecoverJobs' result).
struct RecoveredJob {
  JobInfo info;
  LiveJob built;                       // empty for a compacted job
  std::vector<AttemptRecord> history;  // tasks done elsewhere, then its journaled attempts
};

// RecoverJobs: every job of the journal `r` and the results archive
// (`archived`, by id), rebuilt against `cluster`. DataLoss when their ids
// are not consecutive.
absl::StatusOr<std::vector<RecoveredJob>> RecoverJobs(const Recovered& r,
                                                      const std::map<uint32_t, v1::ArchivedJob>& archived,
                                                      const Cluster& cluster);

// DoneElsewhere: the tasks of job `id` done before it came here (meta
// done:ID, a JSON array of [stage, task]) as ok history records.
std::vector<AttemptRecord> DoneElsewhere(const std::map<std::string, std::string>& meta, JobId id);

}  // namespace weft::runtime
