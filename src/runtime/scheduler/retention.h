// File: runtime/scheduler/retention.h
//
// Retention (issue 20): which ended jobs a long-lived scheduler no longer
// keeps. Beyond the newest `retain_jobs` ended ones, or ended more than
// `retain_age_us` ago (0: no age limit), a job is due for compaction: its
// export rows go to the results archive and it leaves the journal and memory
// (SchedulerCore::Compact does that). Jobs are due in batches, each of which
// costs the core a pass over the journal's attempts.
//
// Not thread-safe: the core calls it under its lock.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/time.h"
#include "runtime/scheduler/job_table.h"

namespace weft::runtime {

class Retention {
 public:
  Retention(uint64_t retain_jobs, TimeUs retain_age_us) : retain_jobs_(retain_jobs), retain_age_us_(retain_age_us) {}
  // NoteEnded queues an ended job, in end order (nothing, if it keeps everything).
  void NoteEnded(uint32_t job);
  // Due: the jobs no longer kept at `now`, oldest end first, taken off the queue.
  std::vector<uint32_t> Due(TimeUs now, const JobTable& jobs);
  // Keep: jobs Due gave that could not be compacted; they are due again next time.
  void Keep(const std::vector<uint32_t>& jobs);

 private:
  const uint64_t retain_jobs_;
  const TimeUs retain_age_us_;
  std::deque<uint32_t> ended_order_;  // ended jobs not compacted, oldest end first
  TimeUs last_age_check_us_ = 0;
};

}  // namespace weft::runtime
