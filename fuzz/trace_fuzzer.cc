// libFuzzer target: one trace reader (WEFT_FUZZ_FORMAT), built once per
// format by fuzz/CMakeLists.txt. The input holds the format's tables
// (WEFT_FUZZ_TABLES, comma-separated file names) separated by "\0\0"
// (fuzz_files.h); the reader replays them into an in-memory workload, as
// `weft sim --trace` does. The cluster is 2 machines like the format's
// largest, so that building it costs nothing next to the rows.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_files.h"
#include "trace/trace_formats.h"

namespace {

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  std::istringstream list(WEFT_FUZZ_TABLES);
  for (std::string name; std::getline(list, name, ',');) names.push_back(name);
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> names = TableNames();
  weft::TraceSpec spec{.format = WEFT_FUZZ_FORMAT, .paths = weft::fuzz::FuzzTables(data, size, names)};
  weft::TraceOptions options;
  options.machines = 2;
  weft::TraceReport report;
  (void)weft::ReadTraceWorkload(spec, options, report);
  return 0;
}
