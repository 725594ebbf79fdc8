// File: metrics/flows_writer.h
//
// FlowsWriter: a RunObserver that streams every flow (bytes moved between
// machines: a remote input read, or one source machine's part of a shuffle;
// sim/network_flows.h) to DIR/flows.csv, one row per flow as it ends:
//   job,stage,task,attempt,kind,from,to,start,end,mb,completed
// `kind` is read or shuffle; `mb` what it carried; `completed` 0 for a flow
// cut short by its attempt's end. The file exists only when some flow ran,
// so runs without remote reads or shuffle bytes write what they wrote before.
// Written under a temporary name and renamed into place by Finish
// (docs/results.md). Not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "metrics/records.h"
#include "metrics/result_file.h"
#include "model/workload.h"

namespace weft {

class FlowsWriter final : public RunObserver {
 public:
  // `dir` must exist; nothing is created until the first flow. With
  // `compress`, the file is flows.csv.zst (metrics/result_file.h).
  FlowsWriter(std::string dir, const Workload& workload, bool compress = false)
      : workload_(workload), file_(std::move(dir), "flows.csv", kHeader, compress) {}

  void OnFlowEnd(const FlowRecord& record) override;
  // Finish flushes, closes and renames the file into place (if there is one);
  // an error when the file could not be created or written.
  absl::Status Finish();

 private:
  static constexpr std::string_view kHeader = "job,stage,task,attempt,kind,from,to,start,end,mb,completed\n";
  const Workload& workload_;
  LazyResultFile file_;
};

}  // namespace weft
