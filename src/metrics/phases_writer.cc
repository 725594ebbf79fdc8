#include "metrics/phases_writer.h"

#include <filesystem>

#include "metrics/results_writer.h"

namespace weft {

namespace {
constexpr char kHeader[] = "job,stage,task,attempt,phase,resource,machine,start,end,held,completed\n";
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

absl::StatusOr<std::unique_ptr<PhasesWriter>> PhasesWriter::Open(const std::string& dir, const Workload& workload) {
  std::unique_ptr<PhasesWriter> w(new PhasesWriter(dir, workload));
  w->file_ = std::fopen((dir + "/phases.csv.tmp").c_str(), "wb");
  if (w->file_ == nullptr) return absl::InvalidArgumentError(fmt::format("--out {}: cannot write there", dir));
  w->buffer_.append(std::string_view(kHeader));
  return w;
}

PhasesWriter::~PhasesWriter() {
  if (file_) std::fclose(file_);
}

void PhasesWriter::OnPhaseEnd(const PhaseRecord& r) {
  const Job& job = workload_.jobs[r.task.job.value()];
  const Phase& phase = job.stages[r.task.stage].phases[r.phase];
  // A profiled phase has no one resource: its column names the phase
  // ("profiled:NAME", or "profiled" when unnamed) and `held` is the cores it
  // held (docs/results.md).
  const std::string resource = !phase.profiled     ? std::string(kResourceNames[r.resource])
                               : phase.name.empty() ? std::string("profiled")
                                                    : "profiled:" + phase.name;
  fmt::format_to(std::back_inserter(buffer_), "{},{},{},{},{},{},{},{},{},{:.6f},{}\n", CsvField(job.name),
                 CsvField(job.stages[r.task.stage].name), r.task.index, r.attempt, r.phase,
                 CsvField(resource), CsvField(workload_.cluster.machine(r.machine).name),
                 FormatSeconds(r.start_us), FormatSeconds(r.end_us), r.held, r.completed ? 1 : 0);
  Flush(false);
}

void PhasesWriter::Flush(bool force) {
  if (!force && buffer_.size() < kFlushBytes) return;
  std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  buffer_.clear();
}

absl::Status PhasesWriter::Finish() {
  Flush(true);
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) return absl::InternalError(fmt::format("writing phases.csv to {} failed (disk full?)", dir_));
  std::error_code ec;
  std::filesystem::rename(dir_ + "/phases.csv.tmp", dir_ + "/phases.csv", ec);
  if (ec) return absl::InternalError(fmt::format("cannot move phases.csv into place in {}: {}", dir_, ec.message()));
  return absl::OkStatus();
}

}  // namespace weft
