// File: runtime/node/proc_usage.cc
#include "runtime/node/proc_usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "fmt/format.h"

namespace weft::runtime {
namespace {

// ReadSmallFile reads a /proc file whole with raw syscalls (no streams: the
// runner reads hundreds of these per sample). nullopt when it cannot be
// opened, e.g. the process has gone.
std::optional<std::string> ReadSmallFile(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      close(fd);
      return std::nullopt;  // ESRCH: the process exited while being read
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

// NextField returns the next space-separated field of `rest` and advances it.
std::string_view NextField(std::string_view& rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const size_t end = std::min(rest.find(' '), rest.size());
  const std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end);
  return field;
}

template <typename T>
bool ParseInt(std::string_view s, T& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat st;
  const size_t open_paren = text.find('(');
  const size_t close_paren = text.rfind(')');
  if (open_paren == std::string_view::npos || close_paren == std::string_view::npos ||
      close_paren < open_paren) {
    return std::nullopt;
  }
  std::string_view head = text.substr(0, open_paren);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  if (!ParseInt(head, st.pid)) return std::nullopt;
  std::string_view rest = text.substr(close_paren + 1);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  // Field 3 onwards; proc(5) numbers fields from 1.
  uint64_t cpu[4] = {0, 0, 0, 0};
  for (int field = 3; field <= 24; ++field) {
    const std::string_view f = NextField(rest);
    if (f.empty()) return std::nullopt;
    bool ok = true;
    switch (field) {
      case 3: st.state = f.front(); break;
      case 5: ok = ParseInt(f, st.pgrp); break;
      case 14: case 15: case 16: case 17: {
        // cutime and cstime are signed in the kernel's format; never negative in practice.
        int64_t v = 0;
        ok = ParseInt(f, v);
        cpu[field - 14] = v > 0 ? static_cast<uint64_t>(v) : 0;
        break;
      }
      case 22: ok = ParseInt(f, st.start_ticks); break;
      case 24: ok = ParseInt(f, st.rss_pages); break;
      default: break;
    }
    if (!ok) return std::nullopt;
  }
  st.cpu_ticks = cpu[0] + cpu[1] + cpu[2] + cpu[3];
  return st;
}

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/stat", pid);
  const std::optional<std::string> text = ReadSmallFile(path.c_str());
  if (!text) return std::nullopt;
  return ParseProcStat(*text);
}

std::vector<ProcStat> ListProcesses() {
  std::vector<ProcStat> out;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return out;
  while (const dirent* entry = readdir(dir)) {
    pid_t pid = 0;
    if (!ParseInt(std::string_view(entry->d_name), pid) || pid <= 0) continue;
    if (std::optional<ProcStat> st = ReadProcStat(pid)) out.push_back(*st);
  }
  closedir(dir);
  return out;
}

ProcIo ParseProcIo(std::string_view text) {
  ProcIo io;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    uint64_t v = 0;
    if (!ParseInt(value, v)) continue;
    if (key == "rchar") io.rchar = v;
    else if (key == "wchar") io.wchar = v;
    else if (key == "read_bytes") io.read_bytes = v;
    else if (key == "write_bytes") io.write_bytes = v;
  }
  return io;
}

std::optional<ProcIo> ReadProcIo(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/io", pid);
  const std::optional<std::string> text = ReadSmallFile(path.c_str());
  if (!text) return std::nullopt;
  return ParseProcIo(*text);
}

absl::flat_hash_map<pid_t, GroupUsage> SampleGroups(const absl::flat_hash_set<pid_t>& pgids) {
  absl::flat_hash_map<pid_t, GroupUsage> usage;
  if (pgids.empty()) return usage;
  const double ticks = ClockTicksPerSecond();
  const int64_t page = PageSizeBytes();
  for (const ProcStat& st : ListProcesses()) {
    if (!pgids.contains(st.pgrp)) continue;
    GroupUsage& g = usage[st.pgrp];
    g.cpu_seconds += static_cast<double>(st.cpu_ticks) / ticks;
    if (const std::optional<ProcIo> io = ReadProcIo(st.pid)) {
      g.io.rchar += io->rchar;
      g.io.wchar += io->wchar;
      g.io.read_bytes += io->read_bytes;
      g.io.write_bytes += io->write_bytes;
    }
    if (st.state != 'Z') {
      g.rss_bytes += st.rss_pages * page;
      ++g.live_members;
    }
  }
  return usage;
}

std::string BootId() {
  std::optional<std::string> text = ReadSmallFile("/proc/sys/kernel/random/boot_id");
  if (!text) return "";
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return *text;
}

double ClockTicksPerSecond() {
  static const double ticks = [] {
    const long t = sysconf(_SC_CLK_TCK);
    return t > 0 ? static_cast<double>(t) : 100.0;
  }();
  return ticks;
}

int64_t PageSizeBytes() {
  static const int64_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<int64_t>(p) : int64_t{4096};
  }();
  return page;
}

}  // namespace weft::runtime
