#include "metrics/series_writer.h"

#include "metrics/results_writer.h"

namespace weft {

void SeriesWriter::OnSeries(const SeriesPoint& p) {
  fmt::memory_buffer* out = file_.Buffer();
  if (out == nullptr) return;  // not created: Finish says so
  const std::string job = p.job.valid() ? CsvField(workload_.jobs[p.job.value()].name) : std::string();
  fmt::format_to(std::back_inserter(*out), "{},{},{},{}\n", FormatSeconds(p.time_us), CsvField(std::string(p.series)),
                 job, p.value);
  file_.Flush();
}

absl::Status SeriesWriter::Finish() { return file_.Finish(); }

}  // namespace weft
