// File: runtime/scheduler/job_table.h
//
// JobTable: what the scheduler core knows of every job it ever accepted,
// by local job id (= index): its name and description (the export form of the JSON it was
// journaled as), when it was submitted, arrives and ended, how many of its
// tasks are done as the journal counts them. A job the retention compacted
// keeps nothing here: its entry is freed (the table is paged by job id,
// core/paged_store.h, so its memory follows the jobs held) and reads as a
// stub that only says `compacted`; what `weft status` and the export show of
// it is in the results archive, and the table counts compacted jobs by how
// they ended (for /metrics). It also
// keeps the per-scheduler limits over the jobs that have not ended (bug 3
// of issue 20): their tasks and the bytes of their descriptions.
//
// Only journaled facts are written here (the core applies an end after its
// commit), so status and export never run ahead of the journal. Not
// thread-safe: the core calls it under its lock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/paged_store.h"
#include "core/time.h"
#include "runtime/journal.h"

namespace weft::runtime {

struct JobInfo {
  std::string name;
  std::string spec_json;  // its export form (job_intake.h, ExportForm); the journal has it as submitted
  TimeUs submitted_us = 0;
  JournalJob::State state = JournalJob::State::kActive;
  TimeUs end_us = 0;
  uint64_t tasks = 0;
  // When the job arrives (submission plus its `arrival` offset): kept here
  // so that an ended job exports the same before and after a restart.
  TimeUs arrival_us = 0;
  uint64_t done = 0;  // ok attempts (one per task), as the journal counts them, and tasks done elsewhere
  uint32_t moved_to = 0;  // global id + 1 of the job a failover moved it to (meta moved:ID); 0: none
  // The size of its description as submitted (commands included), what
  // --max-job-mb counts while it is active; spec_json is smaller.
  uint64_t description_bytes = 0;
  bool compacted = false;  // retention: nothing else of it is kept here; its rows are in the archive
};

// ArrivalUs: when a job submitted at `submitted_us` with offset `offset_us` arrives.
inline TimeUs ArrivalUs(TimeUs submitted_us, TimeUs offset_us) { return submitted_us + std::max<TimeUs>(0, offset_us); }

// JobStateName: "running", "succeeded", "failed" or "cancelled";
// JobStateOfName the reverse for an ended job (an archived row's state).
const char* JobStateName(JournalJob::State state);
JournalJob::State JobStateOfName(const std::string& name);

class JobTable {
 public:
  JobTable(uint64_t max_tasks_in_flight, uint64_t max_job_bytes)
      : max_tasks_(max_tasks_in_flight), max_bytes_(max_job_bytes) {}

  // size: jobs ever accepted (ids 0..size-1). A compacted job reads as a
  // stub whose only meaningful field is `compacted` (its state, counts and
  // times are in the results archive).
  size_t size() const { return jobs_.size(); }
  const JobInfo& operator[](uint32_t job) const { return jobs_[job]; }
  // first_held: the jobs below it are all compacted; loops over the jobs
  // held start there.
  uint32_t first_held() const { return static_cast<uint32_t>(jobs_.first_held()); }
  // Reserve: room for `more` jobs, so that adding them cannot fail.
  void Reserve(size_t more) { ReserveMore(jobs_, more); }
  // Add appends job size(); an active one counts against the limits until it ends.
  void Add(JobInfo info);

  // CheckLimits: ResourceExhausted when `tasks` and `bytes` more would pass
  // --max-tasks or --max-job-mb.
  absl::Status CheckLimits(uint64_t tasks, uint64_t bytes) const;

  // CountDone: one more of the job's tasks is journaled done.
  void CountDone(uint32_t job) { ++jobs_[job].done; }
  // End: the active job's end is journaled; it no longer counts against the limits.
  void End(uint32_t job, JournalJob::State state, TimeUs end_us);
  // Compact: an ended job's rows are archived; its entry goes (counted in
  // compacted_ended). Add does the same for a job recovered as compacted.
  void Compact(uint32_t job);
  bool any_compacted() const { return compacted_ > 0; }

  // The compacted jobs, by how they ended, and their done tasks.
  struct CompactedCounts {
    uint64_t succeeded = 0;
    uint64_t failed = 0;
    uint64_t cancelled = 0;
    uint64_t tasks_done = 0;
  };
  const CompactedCounts& compacted_ended() const { return counts_; }
  // held_pages: pages of entries held (of PagedStore<JobInfo>::kPageSize
  // jobs): what the table's memory grows with. For tests and /metrics.
  size_t held_pages() const { return jobs_.held_pages(); }

 private:
  const uint64_t max_tasks_;
  const uint64_t max_bytes_;
  PagedStore<JobInfo> jobs_{JobInfo{.state = JournalJob::State::kSucceeded, .compacted = true}};
  uint64_t tasks_in_flight_ = 0;  // tasks of the jobs that have not ended
  uint64_t bytes_in_flight_ = 0;  // their description_bytes
  size_t compacted_ = 0;
  CompactedCounts counts_;
};

}  // namespace weft::runtime
