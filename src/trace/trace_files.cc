#include "trace/trace_files.h"

#include <algorithm>
#include <filesystem>

#include "fmt/format.h"

namespace weft {

absl::StatusOr<std::map<std::string, std::vector<std::string>>> TablesOf(const std::vector<std::string>& paths,
                                                                         const std::vector<std::string>& tables,
                                                                         std::string_view format) {
  namespace fs = std::filesystem;
  std::map<std::string, std::vector<std::string>> out;
  // `match` is the part of the path that decides: below the folder given,
  // so a folder's own name (e.g. /data/task_events_copy/) does not decide.
  auto classify = [&](const std::string& file, std::string_view match, bool named) -> absl::Status {
    for (const std::string& table : tables) {
      if (match.find(table) != std::string_view::npos) {
        out[table].push_back(file);
        return absl::OkStatus();
      }
    }
    if (!named) return absl::OkStatus();  // found in a folder: other files may sit beside the tables
    std::string known;
    for (const std::string& t : tables) known += (known.empty() ? "" : ", ") + t;
    return absl::InvalidArgumentError(
        fmt::format("{}: not a {} table: its name must contain one of {}", file, format, known));
  };
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path().string());
      }
      if (ec) return absl::InvalidArgumentError(fmt::format("{}: cannot list: {}", path, ec.message()));
      std::sort(files.begin(), files.end());
      for (const std::string& f : files) {
        const absl::Status s = classify(f, std::string_view(f).substr(path.size()), false);
        if (!s.ok()) return s;
      }
    } else if (fs::exists(path, ec)) {
      const absl::Status s = classify(path, path, true);
      if (!s.ok()) return s;
    } else {
      return absl::InvalidArgumentError(fmt::format("{}: no such file or folder", path));
    }
  }
  for (auto& [table, list] : out) std::sort(list.begin(), list.end());
  return out;
}

}  // namespace weft
