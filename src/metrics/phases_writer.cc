#include "metrics/phases_writer.h"

#include "core/status.h"
#include "metrics/results_writer.h"

namespace weft {

namespace {
constexpr char kHeader[] = "job,stage,task,attempt,phase,resource,machine,start,end,held,completed\n";
}  // namespace

absl::StatusOr<std::unique_ptr<PhasesWriter>> PhasesWriter::Open(const std::string& dir, const Workload& workload,
                                                                 bool compress) {
  std::unique_ptr<PhasesWriter> w(new PhasesWriter(workload));
  ASSIGN_OR_RETURN(w->file_, ResultFile::Open(dir, "phases.csv", compress));
  w->file_->buffer().append(std::string_view(kHeader));
  return w;
}

void PhasesWriter::OnPhaseEnd(const PhaseRecord& r) {
  const Job& job = workload_.jobs[r.task.job.value()];
  fmt::format_to(std::back_inserter(file_->buffer()), "{},{},{},{},{},{},{},{},{},{:.6f},{}\n", CsvField(job.name),
                 CsvField(job.stages[r.task.stage].name), r.task.index, r.attempt, r.phase,
                 kResourceNames[r.resource], CsvField(workload_.cluster.machine(r.machine).name),
                 FormatSeconds(r.start_us), FormatSeconds(r.end_us), r.held, r.completed ? 1 : 0);
  file_->Flush();
}

absl::Status PhasesWriter::Finish() { return file_->Finish(); }

}  // namespace weft
