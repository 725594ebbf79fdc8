// libFuzzer target: weft's workload reader (FORMATS.md section 1), the code
// `weft validate`, `weft sim -w` and the scheduler's Submit all trust to
// refuse bad input with a message instead of crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trace/workload_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)weft::ParseWorkload(text);
  return 0;
}
