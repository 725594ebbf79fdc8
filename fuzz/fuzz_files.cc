#include "fuzz_files.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace weft::fuzz {

namespace fs = std::filesystem;

namespace {

// Dir: made once per process (parallel fuzzing jobs each get their own).
const fs::path& Dir() {
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/weft-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(Dir(), ec);
    });
    return fs::path(pattern);
  }();
  return dir;
}

}  // namespace

const std::string& FuzzDir() {
  static const std::string dir = Dir().string();
  return dir;
}

std::vector<std::string> FuzzTables(const uint8_t* data, size_t size, const std::vector<std::string>& names) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> paths;
  size_t start = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const fs::path path = Dir() / names[i];
    std::error_code ec;
    fs::remove(path, ec);  // a table the last input had and this one has not
    if (start > input.size()) continue;
    const size_t end = i + 1 < names.size() ? input.find(std::string_view("\0\0", 2), start) : std::string_view::npos;
    const std::string_view part = input.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    std::ofstream(path, std::ios::binary).write(part.data(), static_cast<std::streamsize>(part.size()));
    paths.push_back(path.string());
    start = end == std::string_view::npos ? input.size() + 1 : end + 2;
  }
  return paths;
}

}  // namespace weft::fuzz
