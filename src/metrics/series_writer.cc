#include "metrics/series_writer.h"

#include <filesystem>

#include "metrics/results_writer.h"

namespace weft {

namespace {
constexpr char kHeader[] = "time,series,job,value\n";
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

SeriesWriter::~SeriesWriter() {
  if (file_) std::fclose(file_);
}

void SeriesWriter::OnSeries(const SeriesPoint& p) {
  if (file_ == nullptr) {
    if (open_failed_) return;
    // Opened lazily: a run that records nothing leaves no series.csv.
    file_ = std::fopen((dir_ + "/series.csv.tmp").c_str(), "wb");
    if (file_ == nullptr) {
      open_failed_ = true;
      return;
    }
    buffer_.append(std::string_view(kHeader));
  }
  const std::string job = p.job.valid() ? CsvField(workload_.jobs[p.job.value()].name) : std::string();
  fmt::format_to(std::back_inserter(buffer_), "{},{},{},{}\n", FormatSeconds(p.time_us),
                 CsvField(std::string(p.series)), job, p.value);
  Flush(false);
}

void SeriesWriter::Flush(bool force) {
  if (!force && buffer_.size() < kFlushBytes) return;
  std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  buffer_.clear();
}

absl::Status SeriesWriter::Finish() {
  if (open_failed_) return absl::InternalError(fmt::format("cannot write series.csv in {}", dir_));
  if (file_ == nullptr) return absl::OkStatus();
  Flush(true);
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) return absl::InternalError(fmt::format("writing series.csv to {} failed (disk full?)", dir_));
  std::error_code ec;
  std::filesystem::rename(dir_ + "/series.csv.tmp", dir_ + "/series.csv", ec);
  if (ec) return absl::InternalError(fmt::format("cannot move series.csv into place in {}: {}", dir_, ec.message()));
  return absl::OkStatus();
}

}  // namespace weft
