#include "trace/alibaba_rows.h"

#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <tuple>

#include "core/status.h"
#include "fmt/format.h"
#include "model/names.h"

namespace weft {
namespace {

// The fields the reader uses, and where each is in a row of the file.
enum Field { kJob, kTask, kInstances, kStatus, kStart, kEnd, kPlanCpu, kPlanMem, kDuration, kAvgInstance, kNumFields };
constexpr std::array<std::string_view, kNumFields> kHeaderNames = {
    "job_name", "task_name", "instance_num", "status", "start_time", "end_time",
    "plan_cpu", "plan_mem", "duration", "avg_instance_duration"};
constexpr int kRequiredFields = kPlanMem + 1;  // duration and avg_instance_duration are optional

using Layout = AlibabaTaskRowStream::Layout;  // column: per Field; width: fields per row
static_assert(std::tuple_size_v<decltype(Layout::column)> == kNumFields);

// The native batch_task.csv: task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem.
constexpr Layout kNativeLayout = {{2, 0, 1, 4, 5, 6, 7, 8, -1, -1}, 9};

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    fields.push_back(line.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
    if (comma == std::string_view::npos) return fields;
    begin = comma + 1;
  }
}

// HeaderLayout maps a header line to columns, or nullopt when `fields` is not
// a header (no "job_name" column).
absl::StatusOr<std::optional<Layout>> HeaderLayout(const std::vector<std::string_view>& fields, std::string_view where) {
  Layout layout;
  layout.column.fill(-1);
  layout.width = fields.size();
  bool is_header = false;
  for (size_t c = 0; c < fields.size(); ++c) {
    for (int f = 0; f < kNumFields; ++f) {
      if (fields[c] != kHeaderNames[f]) continue;
      if (layout.column[f] >= 0) return absl::InvalidArgumentError(fmt::format("{}: column \"{}\" appears twice", where, fields[c]));
      layout.column[f] = static_cast<int>(c);
      is_header |= f == kJob;
    }
  }
  if (!is_header) return std::optional<Layout>();
  for (int f = 0; f < kRequiredFields; ++f) {
    if (layout.column[f] < 0) {
      return absl::InvalidArgumentError(fmt::format("{}: header has no \"{}\" column", where, kHeaderNames[f]));
    }
  }
  return std::optional<Layout>(layout);
}

// ParseNumber reads a finite decimal number; empty and "nan" are missing (NaN).
absl::StatusOr<double> ParseNumber(std::string_view text, std::string_view column, std::string_view where) {
  if (text.empty() || text == "nan" || text == "NaN") return NAN;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return absl::InvalidArgumentError(fmt::format("{}: {} \"{}\" is not a number", where, column, text));
  }
  return value;
}

absl::StatusOr<AlibabaTaskRow> ParseRow(const std::vector<std::string_view>& fields, const Layout& layout,
                                        std::string_view where) {
  if (fields.size() != layout.width) {
    return absl::InvalidArgumentError(fmt::format("{}: {} fields, expected {}", where, fields.size(), layout.width));
  }
  auto text = [&](Field f) { return layout.column[f] < 0 ? std::string_view() : fields[layout.column[f]]; };
  AlibabaTaskRow row;
  row.job = std::string(text(kJob));
  row.task = std::string(text(kTask));
  row.status = std::string(text(kStatus));
  if (row.job.empty()) return absl::InvalidArgumentError(fmt::format("{}: job_name is empty", where));
  if (row.task.empty()) return absl::InvalidArgumentError(fmt::format("{}: task_name is empty", where));
  // The names become JSON strings and job names (found by fuzzing: invalid
  // UTF-8 made the converted workload's JSON throw instead of refusing).
  for (const auto& [column, name] : {std::pair{"job_name", &row.job}, {"task_name", &row.task}}) {
    if (const size_t bad = FirstInvalidUtf8(*name); bad != std::string::npos) {
      return absl::InvalidArgumentError(fmt::format("{}: {} is not valid UTF-8 (byte {})", where, column, bad));
    }
    if (HasControlCharacter(*name)) {
      return absl::InvalidArgumentError(fmt::format("{}: {} holds a control character", where, column));
    }
  }
  const std::array<std::pair<Field, double*>, 7> numbers = {{{kInstances, &row.instances},
                                                             {kStart, &row.start_s},
                                                             {kEnd, &row.end_s},
                                                             {kPlanCpu, &row.plan_cpu},
                                                             {kPlanMem, &row.plan_mem},
                                                             {kDuration, &row.duration_s},
                                                             {kAvgInstance, &row.avg_instance_s}}};
  for (const auto& [field, out] : numbers) {
    ASSIGN_OR_RETURN(*out, ParseNumber(text(field), kHeaderNames[field], where));
    if (*out < 0) {
      return absl::InvalidArgumentError(fmt::format("{}: {} {} is negative", where, kHeaderNames[field], *out));
    }
  }
  return row;
}

}  // namespace

absl::StatusOr<std::optional<AlibabaTaskRow>> AlibabaTaskRowStream::Next() {
  while (std::getline(in_, line_)) {
    ++number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.empty()) continue;
    const std::string where = fmt::format("{}:{}", file_, number_);
    const std::vector<std::string_view> fields = SplitFields(line_);
    if (!layout_) {
      ASSIGN_OR_RETURN(layout_, HeaderLayout(fields, where));
      if (layout_) continue;  // the line was the header
      if (fields.size() != kNativeLayout.width) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: neither a header naming job_name, task_name, ... nor a batch_task row of {} fields "
            "(task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem)",
            where, kNativeLayout.width));
      }
      layout_ = kNativeLayout;
    }
    ASSIGN_OR_RETURN(AlibabaTaskRow row, ParseRow(fields, *layout_, where));
    row.line = number_;
    return std::optional<AlibabaTaskRow>(std::move(row));
  }
  if (in_.bad()) return absl::InvalidArgumentError(fmt::format("{}: read error", file_));
  if (!layout_) return absl::InvalidArgumentError(fmt::format("{}: no rows", file_));
  return std::optional<AlibabaTaskRow>();
}

absl::StatusOr<std::vector<AlibabaTaskRow>> ReadAlibabaTaskRows(std::istream& in, std::string_view file) {
  std::vector<AlibabaTaskRow> rows;
  AlibabaTaskRowStream stream(in, std::string(file));
  while (true) {
    ASSIGN_OR_RETURN(std::optional<AlibabaTaskRow> row, stream.Next());
    if (!row) return rows;
    rows.push_back(std::move(*row));
  }
}

absl::StatusOr<std::vector<AlibabaTaskRow>> ReadAlibabaTaskRowsFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return absl::InvalidArgumentError(fmt::format("{}: is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(fmt::format("{}: cannot open", path));
  return ReadAlibabaTaskRows(in, path);
}

}  // namespace weft
