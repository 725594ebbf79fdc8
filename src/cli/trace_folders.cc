#include "cli/trace_folders.h"

#include <algorithm>
#include <filesystem>

#include "core/status.h"
#include "fmt/format.h"

namespace weft::cli {
namespace {

namespace fs = std::filesystem;

// A format whose reader takes files, and how its files are named.
struct FileFormat {
  std::string_view name;
  std::vector<std::string_view> prefixes;  // a file's name starts with one of them
  std::string_view extension;              // or, when not empty, ends with it (before a .gz)
  std::string_view expected;               // said when a folder holds none
};

const FileFormat* FindFileFormat(std::string_view format) {
  static const FileFormat kFormats[] = {
      {"alibaba-2017", {"batch_task", "batch_instance"}, "", "batch_task (and batch_instance) files"},
      {"alibaba-2018", {"batch_task", "batch_instance"}, "", "batch_task (and batch_instance) files"},
      {"tpch-cloudlab", {"tpch_cloudlab_stages"}, "", "a tpch_cloudlab_stages.csv file"},
      {"swim", {}, ".tsv", "SWIM .tsv files"},
  };
  for (const FileFormat& f : kFormats) {
    if (f.name == format) return &f;
  }
  return nullptr;
}

bool IsFormatFile(const FileFormat& f, const fs::path& path) {
  std::string name = path.filename().string();
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  for (std::string_view p : f.prefixes) {
    if (name.starts_with(p)) return true;
  }
  return !f.extension.empty() && name.ends_with(f.extension);
}

absl::StatusOr<std::vector<std::string>> FilesIn(const FileFormat& f, const std::string& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && IsFormatFile(f, it->path())) files.push_back(it->path().string());
  }
  if (ec) return absl::InvalidArgumentError(fmt::format("{}: cannot read the folder: {}", folder, ec.message()));
  if (files.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}:{}: the folder holds no {}", f.name, folder, f.expected));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

absl::StatusOr<TraceSpec> ParseTraceArgument(std::string_view text) {
  ASSIGN_OR_RETURN(TraceSpec spec, ParseTraceSpec(text));
  const FileFormat* format = FindFileFormat(spec.format);
  if (format == nullptr) return spec;  // its reader finds its tables in folders itself
  std::vector<std::string> paths;
  for (const std::string& path : spec.paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      paths.push_back(path);
      continue;
    }
    ASSIGN_OR_RETURN(std::vector<std::string> files, FilesIn(*format, path));
    paths.insert(paths.end(), files.begin(), files.end());
  }
  spec.paths = std::move(paths);
  return spec;
}

}  // namespace weft::cli
