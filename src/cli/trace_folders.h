// File: cli/trace_folders.h
//
// A trace argument FORMAT:PATH[,PATH...] whose PATHs may be folders for every
// format. google-2011, google-2019 and decima-tpch find their tables in a
// folder themselves; for the formats whose readers take files (alibaba-2017,
// alibaba-2018, tpch-cloudlab, swim) a folder stands for the files of the
// format it holds, found by name as the traces are published:
//   alibaba-2017, alibaba-2018  batch_task* and batch_instance* files
//   tpch-cloudlab              tpch_cloudlab_stages* files
//   swim                       *.tsv files (read at once, merged by time)
// searched recursively and in path order. A folder holding none is an error
// that names what was looked for.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "trace/trace_formats.h"

namespace weft::cli {

// ParseTraceArgument is ParseTraceSpec (trace/trace_formats.h) with each
// folder replaced by the files it holds for the format (see above).
absl::StatusOr<TraceSpec> ParseTraceArgument(std::string_view text);

}  // namespace weft::cli
