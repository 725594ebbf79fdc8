#include "trace/swim.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

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

absl::Status ReadFile(const std::string& file, const std::string& prefix, TraceEmitter& out) {
  ASSIGN_OR_RETURN(auto rows, RowReader::Open(file, '\t'));
  while (true) {
    ASSIGN_OR_RETURN(const bool more, rows->Next());
    if (!more) break;
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
    RETURN_IF_ERROR(out.Job({{"name", prefix + id}, {"stages", std::move(stages)}}, submit));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadSwim(const std::vector<std::string>& paths, TraceEmitter& out) {
  RETURN_IF_ERROR(out.Cluster(json::array({MachineGroup("m", kMachines, {{"cpu", 8}, {"mem", 32}})})));
  for (const std::string& file : paths) {
    const std::string prefix =
        paths.size() > 1 ? std::filesystem::path(file).stem().string() + "/" : std::string();
    RETURN_IF_ERROR(ReadFile(file, prefix, out));
  }
  return absl::OkStatus();
}

}  // namespace weft
