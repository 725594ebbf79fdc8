// File: trace/alibaba_2018.h
//
// The alibaba-2018 trace format: Alibaba cluster-trace-v2018 batch_task, in
// the native layout or the ERDOS DAG subsets, converted by alibaba_reader.h
// (its header lists the rules) and passed through a TraceEmitter like every
// other format. The cluster is Alibaba 2018's: 4,034 machines of 96 cores,
// memory 100 (plan_mem is a percentage of a machine). Arrivals are relative
// to the earliest job kept (alibaba_reader.h). Unlike the other readers this
// one holds the file's rows in memory (alibaba_rows.h), and does not read
// batch_instance yet. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ReadAlibaba2018(const std::vector<std::string>& paths, TraceEmitter& out);

}  // namespace weft
