// libFuzzer target: GzInput (trace/gz_input.h), the front of every trace
// reader, which inflates gzip parts with igzip and passes plain files
// through. The first two bytes of the input choose the input chunk (1 to 64
// bytes, or GzInput's own) and the read size, so that headers, blocks and
// trailers are cut everywhere; the rest is the file. When GzInput reads a
// file without error, zlib's gzread (which GzInput replaced, and which reads
// the same files the same way when they are whole) must give the same bytes.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fuzz_files.h"
#include "trace/gz_input.h"

namespace {

std::string ReadWithZlib(const std::string& path) {
  std::string out;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) return out;
  char buf[4096];
  int n;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(gz);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t chunk = data[0] < 192 ? 1 + data[0] % 64 : weft::GzInput::kInputChunk;
  const size_t read_size = 1 + data[1] % 97;
  const std::string path = weft::fuzz::FuzzDir() + "/part.gz";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 2), size - 2);
  auto in = weft::GzInput::Open(path, chunk);
  if (!in.ok()) return 0;
  std::string got;
  char buf[97];
  while (true) {
    const auto n = (*in)->Read(buf, read_size);
    if (!n.ok()) return 0;  // refused with a message: fine
    if (*n == 0) break;
    got.append(buf, *n);
  }
  if (got != ReadWithZlib(path)) std::abort();
  return 0;
}
