#include "trace/stage_table.h"

#include "fmt/format.h"
#include "trace/trace_source.h"

namespace weft {

absl::Status ExpectHeader(const RowReader& rows, const std::vector<std::string_view>& columns,
                          std::string_view table) {
  bool same = rows.size() == columns.size();
  for (size_t c = 0; same && c < columns.size(); ++c) same = rows.field(c) == columns[c];
  if (same) return absl::OkStatus();
  std::string expected;
  for (std::string_view c : columns) expected += fmt::format("{}{}", expected.empty() ? "" : ",", c);
  return rows.Error(fmt::format("not a {} file: the header must be {}", table, expected));
}

std::vector<std::string> SplitIds(std::string_view text) {
  std::vector<std::string> ids;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t space = text.find(' ', begin);
    const size_t end = space == std::string_view::npos ? text.size() : space;
    if (end > begin) ids.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return ids;
}

nlohmann::json AnalyticsCluster() {
  return nlohmann::json::array({MachineGroup("m", 100, {{"cpu", 8}, {"mem", 32}})});
}

}  // namespace weft
