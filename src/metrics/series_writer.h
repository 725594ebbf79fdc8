// File: metrics/series_writer.h
//
// SeriesWriter: a RunObserver that streams the values policies record
// (policy::Context::Record) to DIR/series.csv, one row per value:
//   time,series,job,value
// `time` in seconds, `job` the job's name (empty for a value of no one job).
// The file exists only when some value was recorded, so runs of policies that
// record nothing write exactly what they wrote before. Written under a
// temporary name and renamed into place by Finish (docs/results.md). Not
// thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "metrics/records.h"
#include "metrics/result_file.h"
#include "model/workload.h"

namespace weft {

class SeriesWriter final : public RunObserver {
 public:
  // `dir` must exist; nothing is created until the first value. With
  // `compress`, the file is series.csv.zst (metrics/result_file.h).
  SeriesWriter(std::string dir, const Workload& workload, bool compress = false)
      : workload_(workload), file_(std::move(dir), "series.csv", kHeader, compress) {}

  void OnSeries(const SeriesPoint& point) override;
  // Finish flushes, closes and renames the file into place (if there is one);
  // an error when the file could not be created or written.
  absl::Status Finish();

 private:
  static constexpr std::string_view kHeader = "time,series,job,value\n";
  const Workload& workload_;
  LazyResultFile file_;
};

}  // namespace weft
