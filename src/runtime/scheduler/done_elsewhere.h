// File: runtime/scheduler/done_elsewhere.h
//
// Failover's bookkeeping on the receiving side: a client that moves the jobs
// of a scheduler that went down (client/failover.h) resubmits them here with
// the tasks the dead scheduler had already journaled ok. Those tasks are
// journaled with the jobs (meta done:ID, read back on recovery by
// journal_recovery.h's DoneElsewhere) and handed to the engine as history,
// so they are never run again. Thread-safe: plain data and functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ids.h"
#include "metrics/records.h"
#include "runtime/scheduler/job_intake.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// DoneTasks: the tasks of one submitted job that are done elsewhere, as
// (stage, task) pairs in the order given.
class DoneTasks {
 public:
  void Add(uint32_t stage, uint32_t task) { tasks_.emplace_back(stage, task); }
  bool empty() const { return tasks_.empty(); }
  size_t size() const { return tasks_.size(); }
  // JournalText: the list as the journal keeps it, [[stage, task], ...].
  std::string JournalText() const;
  // History: one ok attempt per task of job `id`, for the engine.
  std::vector<AttemptRecord> History(JobId id) const;

 private:
  std::vector<std::pair<uint32_t, uint32_t>> tasks_;
};

// SortDoneTasks sorts `done` by the job of `specs` it names (DoneTask.job is
// an index into the submission). InvalidArgument for one that names no task.
absl::StatusOr<std::vector<DoneTasks>> SortDoneTasks(std::span<const v1::DoneTask> done,
                                                     std::span<const SubmittedJob> specs);

// DoneMetaKey: the journal's meta key of job `id`'s list ("done:ID").
std::string DoneMetaKey(JobId id);

}  // namespace weft::runtime
