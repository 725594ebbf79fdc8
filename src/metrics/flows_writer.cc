#include "metrics/flows_writer.h"

#include "fmt/format.h"
#include "metrics/results_writer.h"

namespace weft {

void FlowsWriter::OnFlowEnd(const FlowRecord& r) {
  fmt::memory_buffer* out = file_.Buffer();
  if (out == nullptr) return;  // not created: Finish says so
  const Job& job = workload_.jobs[r.task.job.value()];
  const Cluster& c = workload_.cluster;
  fmt::format_to(std::back_inserter(*out), "{},{},{},{},{},{},{},{},{},{:.6f},{}\n", CsvField(job.name),
                 CsvField(job.stages[r.task.stage].name), r.task.index, r.attempt,
                 r.kind == FlowKind::kRemoteRead ? "read" : "shuffle", CsvField(c.machine(r.from).name),
                 CsvField(c.machine(r.to).name), FormatSeconds(r.start_us), FormatSeconds(r.end_us), r.mb,
                 r.done ? 1 : 0);
  file_.Flush();
}

absl::Status FlowsWriter::Finish() { return file_.Finish(); }

}  // namespace weft
