#include "metrics/series_writer.h"

#include "metrics/results_writer.h"

namespace weft {

namespace {
constexpr char kHeader[] = "time,series,job,value\n";
}  // namespace

void SeriesWriter::OnSeries(const SeriesPoint& p) {
  if (file_ == nullptr) {
    if (open_failed_) return;
    // Opened lazily: a run that records nothing leaves no series.csv.
    absl::StatusOr<std::unique_ptr<ResultFile>> file = ResultFile::Open(dir_, "series.csv", compress_);
    if (!file.ok()) {
      open_failed_ = true;
      return;
    }
    file_ = *std::move(file);
    file_->buffer().append(std::string_view(kHeader));
  }
  const std::string job = p.job.valid() ? CsvField(workload_.jobs[p.job.value()].name) : std::string();
  fmt::format_to(std::back_inserter(file_->buffer()), "{},{},{},{}\n", FormatSeconds(p.time_us),
                 CsvField(std::string(p.series)), job, p.value);
  file_->Flush();
}

absl::Status SeriesWriter::Finish() {
  if (open_failed_) return absl::InternalError(fmt::format("cannot write series.csv in {}", dir_));
  if (file_ == nullptr) return absl::OkStatus();
  return file_->Finish();
}

}  // namespace weft
