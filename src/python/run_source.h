// File: python/run_source.h
//
// RunInput: what one simulated run reads, from the module's arguments: a
// workload file, a workload as JSON text (weft.Workload), or a trace
// (FORMAT:PATH[,PATH...], read as the run goes), checked by the same readers
// as the command line's, so a bad field raises weft.WorkloadError with the
// reader's message. Each run opens its own source (Source), so runs on
// several threads share nothing but the workload they only read.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/job_source.h"
#include "model/workload.h"
#include "trace/trace_formats.h"
#include "trace/trace_source.h"

namespace weft::python {

struct InputSpec {
  std::string workload_path;  // one of these three
  std::string workload_json;
  std::string trace;
  uint64_t seed = 1;  // a trace's sample and draws
};

class RunInput {
 public:
  // Open reads the workload (or the trace's cluster); throws WorkloadError
  // on bad input. An empty spec is the bundled default workload, as the
  // command line's.
  static std::unique_ptr<RunInput> Open(const InputSpec& spec);

  // workload: every job, or a trace's cluster alone.
  const Workload& workload() const { return workload_; }
  // Source: the jobs of one run; throws WorkloadError if a trace cannot be opened.
  std::unique_ptr<JobSource> Source() const;

 private:
  Workload workload_;
  std::optional<TraceSpec> trace_;
  TraceOptions trace_options_;
};

}  // namespace weft::python
