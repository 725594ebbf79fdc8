#include "runtime/scheduler/metrics_snapshot.h"

namespace weft::runtime {

SchedulerMetrics::Snapshot JobsSnapshot(const JobTable& jobs, std::vector<uint32_t>& active) {
  SchedulerMetrics::Snapshot s;
  const JobTable::CompactedCounts& compacted = jobs.compacted_ended();
  s.tasks_done = compacted.tasks_done;
  s.jobs_done = compacted.succeeded;
  s.jobs_failed = compacted.failed;
  s.jobs_cancelled = compacted.cancelled;
  for (uint32_t j = jobs.first_held(); j < jobs.size(); ++j) {
    const JobInfo& info = jobs[j];
    if (info.compacted) continue;  // counted above
    s.tasks_done += info.done;
    switch (info.state) {
      case JournalJob::State::kActive:
        ++s.jobs_active;
        active.push_back(j);
        break;
      case JournalJob::State::kSucceeded: ++s.jobs_done; break;
      case JournalJob::State::kFailed: ++s.jobs_failed; break;
      case JournalJob::State::kCancelled: ++s.jobs_cancelled; break;
    }
  }
  return s;
}

}  // namespace weft::runtime
