#include "trace/swim.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <tuple>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/row_reader.h"
#include "trace/task_groups.h"

namespace weft {
namespace {

using nlohmann::json;

constexpr double kSplitBytes = 128.0 * (1 << 20);
constexpr double kReduceBytes = 1024.0 * (1 << 20);
constexpr double kBytesPerSecond = 100.0 * (1 << 20);
constexpr uint64_t kMachines = 600;
// The most bytes a column may give: 10 PB keeps every derived task count
// (75M maps at most) and duration (2e8 s) in range; found by fuzzing
// (a 1e90-byte input made a task count no integer holds).
constexpr double kMaxBytes = 1e16;

// TaskSeconds: bytes at the model's bandwidth, in whole microseconds, >= 1 ms.
double TaskSeconds(double bytes) {
  return Seconds(std::max<int64_t>(1000, static_cast<int64_t>(std::llround(bytes / kBytesPerSecond * 1e6))));
}

json Stage(std::string_view name, double tasks, double bytes_per_task) {
  return {{"name", name},
          {"tasks", static_cast<uint64_t>(tasks)},
          {"duration", TaskSeconds(bytes_per_task)},
          {"demand", {{"cpu", 1}, {"mem", 1}}}};
}

// SwimFile: one file's rows, parsed one job ahead, so that several files can
// be merged by submit time.
class SwimFile {
 public:
  SwimFile(std::unique_ptr<RowReader> rows, std::string prefix) : rows_(std::move(rows)), prefix_(std::move(prefix)) {}

  // Advance parses the next row into job() and submit(); false at the end.
  absl::StatusOr<bool> Advance(TraceEmitter& out);
  json& job() { return job_; }
  double submit() const { return submit_; }

 private:
  std::unique_ptr<RowReader> rows_;
  std::string prefix_;
  json job_;
  double submit_ = 0;
};

absl::StatusOr<bool> SwimFile::Advance(TraceEmitter& out) {
  RowReader* rows = rows_.get();
  ASSIGN_OR_RETURN(const bool more, rows->Next());
  if (!more) return false;
  ++out.report().rows;
  if (rows->row_number() == 1 && rows->size() > 1 && !ParseFiniteNumber(rows->field(1))) {
    return rows->ColumnError(1, "submit_time_s",
                             fmt::format("\"{}\" is not a number: swim files have no header row", rows->field(1)));
  }
  // FB-2010 withInputPaths rows add input_path and two empty columns.
  if (rows->size() < 6 || rows->size() > 9) RETURN_IF_ERROR(rows->ExpectColumns(6, "swim"));
  for (size_t c = 7; c < rows->size(); ++c) {
    if (!rows->field(c).empty()) return rows->ColumnError(c, "(none)", "a swim row has at most 7 non-empty columns");
  }
  const std::string& id = rows->field(0);
  if (id.empty()) return rows->ColumnError(0, "job_id", "is empty");
  ASSIGN_OR_RETURN(const double submit, rows->Number(1, "submit_time_s"));
  RETURN_IF_ERROR(rows->Number(2, "inter_job_gap_s").status());
  ASSIGN_OR_RETURN(const double input, rows->Number(3, "map_input_bytes"));
  ASSIGN_OR_RETURN(const double shuffle, rows->Number(4, "shuffle_bytes"));
  ASSIGN_OR_RETURN(const double output, rows->Number(5, "reduce_output_bytes"));
  if (submit < 0) return rows->ColumnError(1, "submit_time_s", "is negative");
  // The replay streams: the current row's submit time is the file's low
  // watermark, so a row going back in time cannot be replayed in its turn.
  // SWIM's files are in submit order (all four in ../shared/data).
  if (rows->row_number() > 1 && submit < submit_) {
    return rows->ColumnError(1, "submit_time_s",
                             fmt::format("{} s is before the row above's {} s: swim rows must be in submit order",
                                         submit, submit_));
  }
  for (const auto& [column, name, value] : {std::tuple{3, "map_input_bytes", input}, {4, "shuffle_bytes", shuffle},
                                            {5, "reduce_output_bytes", output}}) {
    if (value < 0) return rows->ColumnError(column, name, "is negative");
    if (value > kMaxBytes) return rows->ColumnError(column, name, "is over 10 PB (1e16 bytes), the model's limit");
  }
  const double maps = std::max(1.0, std::ceil(input / kSplitBytes));
  json stages = json::array();
  if (shuffle > 0) {
    const double reduces = std::max(1.0, std::ceil(shuffle / kReduceBytes));
    stages.push_back(Stage("map", maps, input / maps));
    json reduce = Stage("reduce", reduces, (shuffle + output) / reduces);
    reduce["after"] = json::array({"map"});
    stages.push_back(std::move(reduce));
  } else {
    out.report().Note("jobs without a shuffle (map only)");
    stages.push_back(Stage("map", maps, (input + output) / maps));
  }
  job_ = {{"name", prefix_ + id}, {"stages", std::move(stages)}};
  submit_ = submit;
  return true;
}

}  // namespace

absl::Status ReadSwim(const std::vector<std::string>& paths, TraceEmitter& out) {
  RETURN_IF_ERROR(out.Cluster(json::array({MachineGroup("m", kMachines, {{"cpu", 8}, {"mem", 32}})})));
  // Every file is open at once and their rows merged by submit time (ties:
  // the file given first), so the jobs are passed in arrival order and the
  // smallest current submit time is the watermark: memory holds one row per
  // file. (Each SWIM file starts at 0: read one after another, every file
  // but the last would wait whole in the replay's reorder buffer.)
  std::vector<SwimFile> files;
  std::vector<size_t> live;  // files with a row parsed, in the order given
  for (const std::string& file : paths) {
    const std::string prefix =
        paths.size() > 1 ? std::filesystem::path(file).stem().string() + "/" : std::string();
    ASSIGN_OR_RETURN(auto rows, RowReader::Open(file, '\t'));
    files.emplace_back(std::move(rows), prefix);
    ASSIGN_OR_RETURN(const bool any, files.back().Advance(out));
    if (any) live.push_back(files.size() - 1);
  }
  while (!live.empty()) {
    size_t next = 0;  // index into live of the earliest row, the first file on ties
    for (size_t k = 1; k < live.size(); ++k) {
      if (files[live[k]].submit() < files[live[next]].submit()) next = k;
    }
    SwimFile& f = files[live[next]];
    RETURN_IF_ERROR(out.Job(std::move(f.job()), f.submit()));
    ASSIGN_OR_RETURN(const bool more, f.Advance(out));
    if (!more) live.erase(live.begin() + static_cast<std::ptrdiff_t>(next));
    double watermark = std::numeric_limits<double>::infinity();
    for (const size_t i : live) watermark = std::min(watermark, files[i].submit());
    if (!live.empty()) out.NoArrivalBefore(watermark);
  }
  return absl::OkStatus();
}

}  // namespace weft
