#include "python/run_source.h"

#include <cstdlib>

#include "python/errors.h"
#include "trace/trace_stream.h"
#include "trace/workload_reader.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft::python {
namespace {

// As the command line's DefaultWorkloadPath (cli/sim_flags.cc).
std::string DefaultWorkloadPath() {
  if (const char* env = std::getenv("WEFT_DEFAULT_WORKLOAD"); env != nullptr && *env != '\0') return env;
  return std::string(WEFT_SOURCE_DIR) + "/examples/default.json";
}

template <typename T>
T ValueOrThrowWorkloadError(absl::StatusOr<T> value) {
  ThrowWorkloadError(value.status());
  return std::move(*value);
}

}  // namespace

std::unique_ptr<RunInput> RunInput::Open(const InputSpec& spec) {
  auto input = std::make_unique<RunInput>();
  const int given = !spec.workload_path.empty() + !spec.workload_json.empty() + !spec.trace.empty();
  if (given > 1) throw pybind11::value_error("give one of workload and trace, not both");
  if (!spec.trace.empty()) {
    input->trace_ = ValueOrThrowWorkloadError(ParseTraceSpec(spec.trace));
    input->trace_options_.seed = spec.seed;
    // The first open checks the trace and gives its cluster; each run opens its own.
    auto source = ValueOrThrowWorkloadError(TraceJobSource::Open(*input->trace_, input->trace_options_));
    input->workload_.cluster = source->workload().cluster;
  } else if (!spec.workload_json.empty()) {
    input->workload_ = ValueOrThrowWorkloadError(ParseWorkload(spec.workload_json));
  } else {
    input->workload_ = ValueOrThrowWorkloadError(
        ReadWorkloadFile(spec.workload_path.empty() ? DefaultWorkloadPath() : spec.workload_path));
  }
  return input;
}

std::unique_ptr<JobSource> RunInput::Source() const {
  if (!trace_) return std::make_unique<WorkloadSource>(workload_);
  return ValueOrThrowWorkloadError(TraceJobSource::Open(*trace_, trace_options_));
}

}  // namespace weft::python
