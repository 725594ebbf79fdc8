// File: trace/alibaba_rows.h
//
// Reads the rows of an Alibaba cluster-trace-v2018 batch_task table, in
// either of the two layouts its data is published in:
//  - native (alibaba/clusterdata batch_task.csv): no header, nine columns
//      task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem
//  - the ERDOS scheduling simulator's DAG subsets (../shared/data/
//    alibaba-v2018-dags-erdos): a header naming the columns, which must
//    include job_name, task_name, instance_num, status, start_time,
//    end_time, plan_cpu and plan_mem, and may add duration (ERDOS's expected
//    task duration) and avg_instance_duration (mean instance run time).
// Columns are found by name in the ERDOS layout, so their order may vary.
//
// A value that is empty or "nan" is missing (the published data has such
// rows; whether that disqualifies a job is decided by the job builder in
// alibaba_reader.h). A row with the wrong number of fields or a value that
// is not a number is an error: InvalidArgument "FILE:LINE: ...". Blank lines
// are ignored. Thread-safe: no shared state.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace weft {

// One batch_task row. Numbers that were missing are NaN (see IsMissing).
struct AlibabaTaskRow {
  uint64_t line = 0;  // 1-based line in the file, for messages
  std::string job;
  std::string task;
  std::string status;
  double instances = NAN;
  double start_s = NAN;
  double end_s = NAN;
  double plan_cpu = NAN;  // 100 = one core
  double plan_mem = NAN;  // percent of one machine's memory (normalized [0, 100])
  double duration_s = NAN;           // ERDOS layout only
  double avg_instance_s = NAN;       // ERDOS medium_filtered only
};

inline bool IsMissing(double value) { return std::isnan(value); }

// AlibabaTaskRowStream pulls the rows of `in` one at a time (the trace
// reader's passes over a file: alibaba_2018.h); `file` names it in messages.
class AlibabaTaskRowStream {
 public:
  AlibabaTaskRowStream(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}
  // Next: the next row, nullopt at the end (a file without a row is an error).
  absl::StatusOr<std::optional<AlibabaTaskRow>> Next();

  // Where each field is in a row of the file (alibaba_rows.cc).
  struct Layout {
    std::array<int, 10> column{};  // per field, -1: not in this file
    size_t width = 0;
  };

 private:
  std::istream& in_;
  std::string file_;
  std::optional<Layout> layout_;
  std::string line_;
  uint64_t number_ = 0;
};

// ReadAlibabaTaskRows reads every row of `in`; `file` names it in messages.
absl::StatusOr<std::vector<AlibabaTaskRow>> ReadAlibabaTaskRows(std::istream& in, std::string_view file);

// ReadAlibabaTaskRowsFile opens `path` and reads it; a missing or unreadable
// file is InvalidArgument too.
absl::StatusOr<std::vector<AlibabaTaskRow>> ReadAlibabaTaskRowsFile(const std::string& path);

}  // namespace weft
