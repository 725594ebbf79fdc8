// File: metrics/event_log.h
//
// EventLog: a RunObserver that streams one CSV line per event of a run
// (attempt start, attempt end, job end) to a file, in simulated-time order:
//   time,event,job,stage,task,attempt,machine,outcome
// For inspecting a schedule or feeding external tools. Not thread-safe.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "metrics/records.h"
#include "model/workload.h"

namespace weft {

class EventLog final : public RunObserver {
 public:
  static absl::StatusOr<std::unique_ptr<EventLog>> Open(const std::string& path, const Workload& workload);
  ~EventLog() override;

  void OnAttemptStart(const AttemptStart& start) override;
  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  absl::Status Finish();

 private:
  EventLog(std::FILE* file, const Workload& workload) : file_(file), workload_(workload) {}
  void Row(TimeUs t, const char* event, const TaskRef& task, uint32_t attempt, MachineId m, const char* outcome);
  void Flush(bool force);

  std::FILE* file_;
  const Workload& workload_;
  fmt::memory_buffer buffer_;
};

}  // namespace weft
