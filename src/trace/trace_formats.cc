#include "trace/trace_formats.h"

#include <array>
#include <cmath>

#include "core/status.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "trace/alibaba_2017.h"
#include "trace/alibaba_2018.h"
#include "trace/decima_tpch.h"
#include "trace/google_2011.h"
#include "trace/google_2019.h"
#include "trace/swim.h"
#include "trace/tpch_cloudlab.h"

namespace weft {
namespace {

struct Format {
  std::string_view name;
  absl::Status (*read)(const std::vector<std::string>& paths, TraceEmitter& out);
};

constexpr std::array<Format, 7> kFormats = {{
    {"google-2011", ReadGoogle2011},
    {"google-2019", ReadGoogle2019},
    {"alibaba-2018", ReadAlibaba2018},
    {"alibaba-2017", ReadAlibaba2017},
    {"decima-tpch", ReadDecimaTpch},
    {"tpch-cloudlab", ReadTpchCloudlab},
    {"swim", ReadSwim},
}};

std::string KnownNames() {
  std::string names;
  for (const Format& f : kFormats) names += fmt::format("{}{}", names.empty() ? "" : ", ", f.name);
  return names;
}

}  // namespace

absl::StatusOr<TraceSpec> ParseTraceSpec(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return absl::InvalidArgumentError(
        fmt::format("trace \"{}\": write FORMAT:PATH[,PATH...] (formats: {})", text, KnownNames()));
  }
  TraceSpec spec{std::string(text.substr(0, colon)), {}};
  bool known = false;
  for (const Format& f : kFormats) known |= f.name == spec.format;
  if (!known) {
    return absl::InvalidArgumentError(fmt::format("trace \"{}\": unknown format \"{}\" (formats: {})", text,
                                                  spec.format, KnownNames()));
  }
  std::string_view rest = text.substr(colon + 1);
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view path = rest.substr(0, comma);
    if (path.empty()) return absl::InvalidArgumentError(fmt::format("trace \"{}\": an empty PATH", text));
    spec.paths.emplace_back(path);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return spec;
}

std::vector<std::string> TraceFormatNames() {
  std::vector<std::string> names;
  for (const Format& f : kFormats) names.emplace_back(f.name);
  return names;
}

absl::Status ReadTrace(const TraceSpec& spec, const TraceOptions& options, JobSink& sink, TraceReport& report) {
  if (!(options.sample > 0 && options.sample <= 1)) return absl::InvalidArgumentError("--sample must be in (0, 1]");
  if (!(options.scale_arrivals > 0) || !std::isfinite(options.scale_arrivals)) {
    return absl::InvalidArgumentError("--scale-arrivals must be a number > 0");
  }
  for (const Format& f : kFormats) {
    if (f.name != spec.format) continue;
    TraceEmitter emitter(options, report, sink);
    RETURN_IF_ERROR(f.read(spec.paths, emitter));
    if (report.jobs_written == 0) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: no job left to run ({})", spec.format, spec.paths.front(),
                                                    fmt::join(report.Lines(), "; ")));
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(fmt::format("unknown trace format \"{}\" (formats: {})", spec.format, KnownNames()));
}

absl::StatusOr<Workload> ReadTraceWorkload(const TraceSpec& spec, const TraceOptions& options, TraceReport& report) {
  WorkloadBuilderSink sink;
  RETURN_IF_ERROR(ReadTrace(spec, options, sink, report));
  return sink.Take();
}

}  // namespace weft
