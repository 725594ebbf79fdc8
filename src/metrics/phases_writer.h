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
#include "model/workload.h"

namespace weft {

class PhasesWriter final : public RunObserver {
 public:
  // Open creates DIR/phases.csv.tmp (`dir` must exist).
  static absl::StatusOr<std::unique_ptr<PhasesWriter>> Open(const std::string& dir, const Workload& workload);
  ~PhasesWriter() override;

  void OnPhaseEnd(const PhaseRecord& record) override;
  // Finish flushes, closes and renames the file into place.
  absl::Status Finish();

 private:
  PhasesWriter(std::string dir, const Workload& workload) : dir_(std::move(dir)), workload_(workload) {}
  void Flush(bool force);

  std::string dir_;
  const Workload& workload_;
  std::FILE* file_ = nullptr;
  fmt::memory_buffer buffer_;
};

}  // namespace weft
