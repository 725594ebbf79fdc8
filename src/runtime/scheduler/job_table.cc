#include "runtime/scheduler/job_table.h"

#include <utility>

#include "fmt/format.h"

namespace weft::runtime {

const char* JobStateName(JournalJob::State state) {
  switch (state) {
    case JournalJob::State::kActive: return "running";
    case JournalJob::State::kSucceeded: return "succeeded";
    case JournalJob::State::kFailed: return "failed";
    case JournalJob::State::kCancelled: return "cancelled";
  }
  return "?";
}

JournalJob::State JobStateOfName(const std::string& name) {
  if (name == "succeeded") return JournalJob::State::kSucceeded;
  if (name == "cancelled") return JournalJob::State::kCancelled;
  return JournalJob::State::kFailed;
}

void JobTable::Add(JobInfo info) {
  if (info.state == JournalJob::State::kActive) {
    tasks_in_flight_ += info.tasks;
    bytes_in_flight_ += info.description_bytes;
  }
  const bool compacted = info.compacted;
  info.compacted = false;  // so that Compact counts it
  jobs_.push_back(std::move(info));
  if (compacted) Compact(static_cast<uint32_t>(jobs_.size() - 1));
}

absl::Status JobTable::CheckLimits(uint64_t tasks, uint64_t bytes) const {
  if (tasks_in_flight_ + tasks > max_tasks_) {
    return absl::ResourceExhaustedError(fmt::format(
        "the submission's {} tasks would bring this scheduler's unfinished tasks to {}, over its limit of {} "
        "(weftd scheduler --max-tasks): wait for jobs to end, or raise the limit",
        tasks, tasks_in_flight_ + tasks, max_tasks_));
  }
  if (bytes_in_flight_ + bytes > max_bytes_) {
    return absl::ResourceExhaustedError(fmt::format(
        "the submission's job descriptions ({} bytes) would bring this scheduler's unfinished jobs to {} bytes, "
        "over its limit of {} (weftd scheduler --max-job-mb): wait for jobs to end, or raise the limit",
        bytes, bytes_in_flight_ + bytes, max_bytes_));
  }
  return absl::OkStatus();
}

void JobTable::End(uint32_t job, JournalJob::State state, TimeUs end_us) {
  JobInfo& info = jobs_[job];
  info.state = state;
  info.end_us = end_us;
  tasks_in_flight_ -= info.tasks;
  bytes_in_flight_ -= info.description_bytes;
}

void JobTable::Compact(uint32_t job) {
  const JobInfo& info = std::as_const(jobs_)[job];
  if (info.compacted) return;
  ++compacted_;
  switch (info.state) {
    case JournalJob::State::kSucceeded: ++counts_.succeeded; break;
    case JournalJob::State::kCancelled: ++counts_.cancelled; break;
    default: ++counts_.failed; break;  // an active job is never compacted
  }
  counts_.tasks_done += info.done;
  jobs_.Free(job);  // reads as the compacted stub from now on
}

}  // namespace weft::runtime
