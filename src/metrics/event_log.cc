#include "metrics/event_log.h"

#include "core/time.h"
#include "metrics/results_writer.h"

namespace weft {

absl::StatusOr<std::unique_ptr<EventLog>> EventLog::Open(const std::string& path, const Workload& workload) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return absl::InvalidArgumentError(fmt::format("--events {}: cannot write there", path));
  std::unique_ptr<EventLog> log(new EventLog(f, workload));
  log->buffer_.append(std::string_view("time,event,job,stage,task,attempt,machine,outcome\n"));
  return log;
}

EventLog::~EventLog() {
  if (file_) std::fclose(file_);
}

void EventLog::Row(TimeUs t, const char* event, const TaskRef& task, uint32_t attempt, MachineId m,
                   const char* outcome) {
  const Job& job = workload_.jobs[task.job.value()];
  fmt::format_to(std::back_inserter(buffer_), "{},{},{},{},{},{},{},{}\n", FormatSeconds(t), event,
                 CsvField(job.name), CsvField(job.stages[task.stage].name), task.index, attempt,
                 CsvField(workload_.cluster.machine(m).name), outcome);
  Flush(false);
}

void EventLog::OnAttemptStart(const AttemptStart& s) { Row(s.time_us, "start", s.task, s.attempt, s.machine, ""); }

void EventLog::OnAttemptEnd(const AttemptRecord& r) {
  Row(r.end_us, "end", r.task, r.attempt, r.machine, OutcomeName(r.outcome));
}

void EventLog::OnJobEnd(const JobRecord& r) {
  fmt::format_to(std::back_inserter(buffer_), "{},job_end,{},,,,,{}\n", FormatSeconds(r.end_us),
                 CsvField(workload_.jobs[r.job.value()].name), r.succeeded ? "ok" : "failed");
  Flush(false);
}

void EventLog::Flush(bool force) {
  if (force || buffer_.size() > (1 << 20)) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    buffer_.clear();
  }
}

absl::Status EventLog::Finish() {
  Flush(true);
  const bool ok = std::fflush(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  return ok ? absl::OkStatus() : absl::InternalError("writing the event log failed (disk full?)");
}

}  // namespace weft
