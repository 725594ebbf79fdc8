// File: trace/trace_formats.h
//
// The trace formats weft reads natively, by name (docs/traces.md), and the
// entry points the commands use: a FORMAT:PATH[,PATH...] spec is read by the
// format's reader (google_2011.h, swim.h, ...) into a JobSink through a
// TraceEmitter (trace_source.h). Thread-safe: the table is constant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "model/workload.h"
#include "trace/trace_source.h"

namespace weft {

struct TraceSpec {
  std::string format;
  std::vector<std::string> paths;
};

// ParseTraceSpec reads "FORMAT:PATH[,PATH...]"; an unknown format is an error
// listing the known ones.
absl::StatusOr<TraceSpec> ParseTraceSpec(std::string_view text);

// TraceFormatNames: every format, in the order docs/traces.md lists them.
std::vector<std::string> TraceFormatNames();

// ReadTrace reads the trace into `sink`, counting in `report`.
absl::Status ReadTrace(const TraceSpec& spec, const TraceOptions& options, JobSink& sink, TraceReport& report);

// ReadTraceWorkload reads the trace into a Workload (a replay).
absl::StatusOr<Workload> ReadTraceWorkload(const TraceSpec& spec, const TraceOptions& options, TraceReport& report);

}  // namespace weft
