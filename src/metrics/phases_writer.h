// File: metrics/phases_writer.h
//
// PhasesWriter: a RunObserver that streams every phase (monotask) of every
// attempt to DIR/phases.csv, one row per phase as it ends:
//   job,stage,task,attempt,phase,resource,machine,start,end,held,completed
// `held` is the time average of the phase's resource it held (cores, MB/s);
// `completed` is 0 for a phase cut short by its attempt's end (killed,
// failed, lost). Written under a temporary name and renamed into place by
// Finish, as the other results are (docs/results.md). Not thread-safe.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "metrics/records.h"
#include "metrics/result_file.h"
#include "model/workload.h"

namespace weft {

class PhasesWriter final : public RunObserver {
 public:
  // Open creates DIR/phases.csv.tmp (`dir` must exist); with `compress`,
  // phases.csv.zst (metrics/result_file.h).
  static absl::StatusOr<std::unique_ptr<PhasesWriter>> Open(const std::string& dir, const Workload& workload,
                                                            bool compress = false);

  void OnPhaseEnd(const PhaseRecord& record) override;
  // Finish flushes, closes and renames the file into place.
  absl::Status Finish();

 private:
  explicit PhasesWriter(const Workload& workload) : workload_(workload) {}

  const Workload& workload_;
  std::unique_ptr<ResultFile> file_;
};

}  // namespace weft
