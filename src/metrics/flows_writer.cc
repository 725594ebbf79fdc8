#include "metrics/flows_writer.h"

#include "fmt/format.h"
#include "metrics/results_writer.h"

namespace weft {

namespace {
constexpr char kHeader[] = "job,stage,task,attempt,kind,from,to,start,end,mb,completed\n";
}  // namespace

void FlowsWriter::OnFlowEnd(const FlowRecord& r) {
  if (file_ == nullptr) {
    if (open_failed_) return;
    // Opened lazily: a run without flows leaves no flows.csv.
    absl::StatusOr<std::unique_ptr<ResultFile>> file = ResultFile::Open(dir_, "flows.csv", compress_);
    if (!file.ok()) {
      open_failed_ = true;
      return;
    }
    file_ = *std::move(file);
    file_->buffer().append(std::string_view(kHeader));
  }
  const Job& job = workload_.jobs[r.task.job.value()];
  const Cluster& c = workload_.cluster;
  fmt::format_to(std::back_inserter(file_->buffer()), "{},{},{},{},{},{},{},{},{},{:.6f},{}\n", CsvField(job.name),
                 CsvField(job.stages[r.task.stage].name), r.task.index, r.attempt,
                 r.kind == FlowKind::kRemoteRead ? "read" : "shuffle", CsvField(c.machine(r.from).name),
                 CsvField(c.machine(r.to).name), FormatSeconds(r.start_us), FormatSeconds(r.end_us), r.mb,
                 r.done ? 1 : 0);
  file_->Flush();
}

absl::Status FlowsWriter::Finish() {
  if (open_failed_) return absl::InternalError(fmt::format("cannot write flows.csv in {}", dir_));
  if (file_ == nullptr) return absl::OkStatus();
  return file_->Finish();
}

}  // namespace weft
