// File: trace/arrival_batches.h
//
// The bounded-memory scheme of the readers whose files are not in job order
// (alibaba-2017, alibaba-2018): a first pass indexes each job (its arrival
// and how many rows it has), the jobs are sorted by arrival, and then
// batches of consecutive jobs, each holding at most a budget of rows
// (TraceOptions::max_held_rows), are collected by a further pass over the
// files each and passed on in arrival order. Memory holds the index and
// one batch's rows, not the file; a file of R kept rows is read
// 1 + ceil(R / budget) times (a job larger than the budget is a batch of
// its own). Plain and gzip files alike: every pass reads from the start.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/status.h"
#include "trace/trace_source.h"

namespace weft {

// One job of a first pass's index (alibaba-2017: key = job_id).
struct ArrivalIndexEntry {
  int64_t key = 0;
  int64_t arrival = 0;
  uint64_t rows = 0;
};

// The note a reader taking more than one batch adds, with the count of batches
// (one pass over the files each), so the cost shows in the report.
inline constexpr std::string_view kNoteBatches =
    "passes over the files to collect the jobs in arrival order (their kept rows are over the memory budget)";

// ForEachBatch calls `batch(std::span<const Entry>)` for consecutive runs of
// `jobs` (already in the order to pass them) whose `rows` sum to at most
// `max_rows`, or of one job when it alone has more; and notes in `report`
// the number of batches when there is more than one.
template <typename Entry, typename F>
absl::Status ForEachBatch(std::span<const Entry> jobs, uint64_t max_rows, TraceReport& report, F&& batch) {
  std::vector<size_t> ends;  // where each batch ends in `jobs`
  for (size_t end = 0; end < jobs.size();) {
    uint64_t rows = jobs[end++].rows;
    while (end < jobs.size() && rows + jobs[end].rows <= max_rows) rows += jobs[end++].rows;
    ends.push_back(end);
  }
  if (ends.size() > 1) report.Note(kNoteBatches, ends.size());
  size_t begin = 0;
  for (const size_t end : ends) {
    RETURN_IF_ERROR(batch(jobs.subspan(begin, end - begin)));
    begin = end;
  }
  return absl::OkStatus();
}

}  // namespace weft
