// File: fuzz/fuzz_files.h
//
// The trace readers read files, not bytes: FuzzTables turns one fuzz input
// into a trace's table files. The input is split at each "\0\0" (two NUL
// bytes, so a single NUL still reaches a reader) into at most
// `names.size()` parts; part i is written to DIR/names[i], where DIR is a
// directory of this process's own under $TMPDIR (or /tmp), emptied on each
// call and removed at exit. Returns the paths written, in order.
// Not thread-safe (libFuzzer calls one input at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::fuzz {

// FuzzDir: this process's own directory (see above).
const std::string& FuzzDir();

std::vector<std::string> FuzzTables(const uint8_t* data, size_t size, const std::vector<std::string>& names);

}  // namespace weft::fuzz
