// File: cli/trace_flags.h
//
// The replay options of a native trace (--window, --sample, --machines,
// --scale-arrivals, --users), shared by `weft sim --trace`, `weft compare --trace` and
// `weft trace convert|inspect`, registered once and turned into TraceOptions.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "trace/trace_source.h"

namespace weft::cli {

struct TraceFlags {
  std::string window;  // START:END, trace seconds
  double sample = 1;
  uint32_t machines = 0;
  double scale_arrivals = 1;
  uint32_t users = 0;
  std::string stages = "by-demand";

  void Register(CLI::App& cmd);
  // Given: true when any option differs from its default.
  bool Given() const;
  absl::StatusOr<TraceOptions> Options(uint64_t seed) const;
};

// PrintReport writes the report's lines to `out`, each after `prefix`.
void PrintReport(std::ostream& out, std::string_view prefix, const TraceReport& report);

}  // namespace weft::cli
