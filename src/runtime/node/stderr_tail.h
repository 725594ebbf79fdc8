// File: runtime/node/stderr_tail.h
//
// StderrTail: the last lines of a task's stderr file, bounded, for the
// task-end report (proto TaskEnd.stderr_tail) so that `weft status` can say
// why a task failed without a login on its node. Reads at most max_bytes
// from the end of the file (one pread: a task that wrote gigabytes costs
// the same as one that wrote a line). Pure file reading; thread-safe.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace weft::runtime {

inline constexpr size_t kStderrTailLines = 5;
inline constexpr size_t kStderrTailBytes = 1024;

// StderrTail: the last `max_lines` lines of `path`, within its last
// `max_bytes` bytes (a line cut by that bound keeps its end), without the
// final newline. Empty when the file is missing, unreadable or empty.
std::string StderrTail(const std::filesystem::path& path, size_t max_lines = kStderrTailLines,
                       size_t max_bytes = kStderrTailBytes);

}  // namespace weft::runtime
