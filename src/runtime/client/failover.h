// File: runtime/client/failover.h
//
// Failover of a job whose scheduler daemon is down (issue 20 bug 10;
// docs/runtime.md, "Several scheduler daemons"), as Sparrow's frontends
// resubmit a dead scheduler's work: the client moves the job's unfinished
// work to a live replica.
//
// MoveJob(job) opens the dead daemon's journal in its state dir. The
// journal is held exclusively while a daemon runs (runtime/journal.h), so
// opening it proves the daemon is not running, and keeps it from starting
// meanwhile. In the journal it finds the job, its description and the
// tasks it finished (its ok attempts, and tasks it had itself been given
// as done), and then:
//   1. fences the job: ends it there as cancelled with meta moved:ID =
//      "pending", committed, so a daemon that comes back never runs it;
//   2. submits the job to a live replica (the first address that answers)
//      with its finished tasks as done (SubmitRequest.done): the replica
//      journals them with the job and never runs them;
//   3. records the new job's global id in the journal (moved:ID = NEW):
//      the daemon, back, reports the job as "moved" with moved_to, so a
//      client waiting there follows it.
// A job already moved is not moved again (its new id is returned), and a
// job whose move stopped between 1 and 3 (moved:ID = "pending") is
// submitted again by the next MoveJob. Not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/client/scheduler_client.h"

namespace weft::runtime {

struct MovedJob {
  uint32_t to = 0;         // the job's global id on the live replica
  uint64_t done = 0;       // tasks it had finished, not run again
  bool already = false;    // moved before (by another client)
  std::string ended;       // the job had ended on the dead daemon (its state): nothing moved
};

// MoveJob moves global job `job`, whose daemon is replica job % replicas,
// using `state_dirs`: state dirs of scheduler daemons, or directories
// whose subdirectories are (a `weft cluster up` DIR). Errors:
// FailedPrecondition while the daemon runs (it answers, or holds its
// journal) or when no live replica answers; NotFound when no state dir is
// the owner's or the job is not in it.
absl::StatusOr<MovedJob> MoveJob(SchedulerClient& client, uint32_t job, uint32_t replicas,
                                 const std::vector<std::filesystem::path>& state_dirs);

// ClusterDirFor: the `weft cluster up` DIR whose scheduler listens at
// `address`, from the token index (local_tokens.h); empty when unknown.
std::filesystem::path ClusterDirFor(const std::string& address);

}  // namespace weft::runtime
