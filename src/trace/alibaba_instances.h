// File: trace/alibaba_instances.h
//
// batch_instance: the table of instance runs both Alibaba traces publish
// beside batch_task (cluster-trace-v2018 and v2017, in layouts of their own),
// read the same way by both readers (alibaba_2018.h, alibaba_2017.h) to
// refine the stages of the jobs they keep. A stage is a task of batch_task;
// its instances are the rows naming its job and task:
//  - only Terminated rows count: a Failed, Interrupted (v2017: a backup
//    copy stopped), Waiting, Running ... row is a try that did not finish
//    the instance, and is skipped (counted), so an instance retried after a
//    failure contributes its finishing run only (seq_no is not read);
//  - a Terminated row without a start and an end, or ending before it
//    starts, is skipped (counted);
//  - when the stage's Terminated rows number exactly its instance_num, each
//    task runs one row's end - start ("durations"; 0 s becomes 1 s, the
//    traces' resolution); otherwise (rows missing, as v2017's known gap of
//    rows without ids; or extra) every task runs their mean (counted as a
//    note); a stage without any keeps the reader's own duration;
//  - usage = the mean over the Terminated rows of cpu_avg (in cores) and
//    mem_avg, values out of range (v2018 marks invalid ones -1 or 101) left
//    out, capped at the stage's demand.
// A kept job's rows are read when its batch is (trace/arrival_batches.h):
// the files are read again per batch, each row counted in the report once.
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "trace/row_reader.h"
#include "trace/trace_source.h"

namespace weft {

// Where a format's batch_instance keeps what is read (columns 0-based).
struct BatchInstanceLayout {
  std::string_view table;  // e.g. "alibaba-2018 batch_instance", in messages
  size_t columns = 0;
  size_t status = 0, start = 0, end = 0, cpu_avg = 0, mem_avg = 0;
  // The names of start, end, cpu_avg and mem_avg in the format's schema, in messages.
  std::string_view start_name = "start_time", end_name = "end_time", cpu_avg_name = "cpu_avg", mem_avg_name = "mem_avg";
  double cpu_per_core = 1;  // cpu_avg / cpu_per_core = cores
  double mem_max = 0;       // a mem_avg above it is invalid
  bool refuse_header = false;      // the table has no header, and a first row that is one is refused
  bool zero_time_unknown = false;  // a time of 0 means none (v2017: not started, not ended, or before the trace)
  // Stage: the (job name, stage name) the row is of, as the format's reader
  // names them; nullopt when the row names none (counted). Its errors are
  // the row's (a malformed id).
  absl::StatusOr<std::optional<std::pair<std::string, std::string>>> (*stage)(const RowReader& row) = nullptr;
};

inline constexpr std::string_view kSkipInstanceNoJob = "batch_instance rows of no kept job";
inline constexpr std::string_view kSkipInstanceNotTerminated = "batch_instance rows not Terminated";
inline constexpr std::string_view kSkipInstanceNoSpan = "batch_instance rows without a start before their end";
inline constexpr std::string_view kSkipInstanceNoIds = "batch_instance rows without a job or task id";
inline constexpr std::string_view kNoteInstanceMean =
    "stages whose Terminated batch_instance rows differ in number from instance_num, run at their mean";

// IsInstanceFile: the readers tell batch_instance files by name (any path
// containing "batch_instance"); every other file is batch_task.
inline bool IsInstanceFile(std::string_view path) { return path.find("batch_instance") != std::string_view::npos; }

// ReadBatchInstances streams the rows of `files` into the stages of `jobs`
// (one batch of the kept jobs, each {"name", "stages"}, stages with "name",
// "tasks", "demand"), as above. A row of a kept job not in the batch is left
// to its own batch's pass; the rows themselves, and the rows of no kept job
// (`kept`: every kept job's name), are counted on the `first` pass only.
absl::Status ReadBatchInstances(const std::vector<std::string>& files, const BatchInstanceLayout& layout,
                                std::span<nlohmann::json> jobs, const absl::flat_hash_set<std::string>& kept,
                                bool first, TraceReport& report);

}  // namespace weft
