#include "runtime/node/stderr_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace weft::runtime {

std::string StderrTail(const std::filesystem::path& path, size_t max_lines, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return {};
  struct stat st {};
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && max_bytes > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    const size_t want = std::min(size, max_bytes);
    text.resize(want);
    ssize_t got;
    do {
      got = pread(fd, text.data(), want, static_cast<off_t>(size - want));
    } while (got < 0 && errno == EINTR);
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  }
  close(fd);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // Keep the last max_lines lines: cut after the max_lines-th newline from the end.
  size_t lines = 0;
  for (size_t i = text.size(); i-- > 0;) {
    if (text[i] == '\n' && ++lines == max_lines) return text.substr(i + 1);
  }
  return max_lines == 0 ? std::string() : text;
}

}  // namespace weft::runtime
