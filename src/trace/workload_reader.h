// File: trace/workload_reader.h
//
// Reads and validates weft's own workload format (FORMATS.md section 1). Every
// rule of the format is checked before a Workload is returned, so code that
// receives one never sees a cycle, an unknown parent or a task that fits no
// machine. Errors are InvalidArgument with a one-line message that names the
// job, the stage and the field, e.g.
//   job "q3-0" stage "agg": "after" names unknown stage "scann"
// Thread-safe: no shared state.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "model/workload.h"

namespace weft {

// The most tasks one workload may hold; beyond this the simulator's per-task
// state would not fit in memory, so the reader refuses with a clear message
// instead of failing on allocation.
inline constexpr uint64_t kMaxWorkloadTasks = 500'000'000;

// ParseWorkload parses workload text (JSON).
absl::StatusOr<Workload> ParseWorkload(std::string_view text);

// ReadWorkloadFile reads and parses the file at `path`. Missing files,
// directories and unreadable files are InvalidArgument errors too.
absl::StatusOr<Workload> ReadWorkloadFile(const std::string& path);

}  // namespace weft
