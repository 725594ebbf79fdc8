// File: metrics/results_writer.h
//
// ResultsWriter: a RunObserver that streams a run's schedule to
// DIR/tasks.csv (one row per attempt) and DIR/jobs.csv (one row per job) in
// the format of FORMATS.md section 2, as the run goes, so no schedule is held
// in memory. Files are written under temporary names and renamed into place
// by Finish(), so a reader never sees a half-written result under the final
// name. Text fields are CSV-quoted with libcsv when they need it.
// jobs.csv also carries, after the columns of FORMATS.md, `outcome`, the
// job's `newlb` (DAGPS NewLB of the job alone on the cluster, seconds;
// metrics/lower_bounds.h) and `newlb_ratio` = jct / newlb.
// Not thread-safe.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "metrics/lower_bounds.h"
#include "metrics/records.h"
#include "metrics/result_file.h"
#include "model/workload.h"

namespace weft {

class ResultsWriter final : public RunObserver {
 public:
  // Open creates `dir` if needed and opens the temporary files.
  // With `compress`, the files are tasks.csv.zst and jobs.csv.zst (metrics/result_file.h).
  static absl::StatusOr<std::unique_ptr<ResultsWriter>> Open(const std::string& dir, const Workload& workload,
                                                             bool compress = false);

  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  // OnJobCancelled: a job that ended because it was cancelled (the runtime's
  // export; a simulation never cancels): its jobs.csv outcome is
  // `cancelled`, not `failed`.
  void OnJobCancelled(const JobRecord& record);

  // Finish flushes, closes and renames the files into place.
  absl::Status Finish();

 private:
  ResultsWriter(std::string dir, const Workload& workload)
      : dir_(std::move(dir)), workload_(workload), bound_capacity_(BoundCapacity::Of(workload.cluster)) {}
  void WriteJob(const JobRecord& r, std::string_view outcome);

  std::string dir_;
  const Workload& workload_;
  BoundCapacity bound_capacity_;
  std::unique_ptr<ResultFile> tasks_;
  std::unique_ptr<ResultFile> jobs_;
  std::vector<std::string> machine_text_;  // each machine's name as a CSV field
  Resources last_demand_;          // the demand demand_text_ renders
  fmt::memory_buffer demand_text_;  // ",cpu,mem,disk,net" of last_demand_; empty before the first row
};

// CsvField returns `text` quoted as a CSV field when it contains a comma,
// quote or line break, else unchanged.
std::string CsvField(const std::string& text);

}  // namespace weft
