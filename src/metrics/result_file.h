// File: metrics/result_file.h
//
// ResultFile: one file of a run's result directory (tasks.csv, jobs.csv,
// phases.csv, series.csv, timeline.csv), written as the run goes and put in
// place only when whole. Rows are appended to buffer(); Flush() writes it out
// in large sequential writes once it passes 1 MiB. The bytes go to
// DIR/NAME.tmp and Finish() renames that to DIR/NAME, so a reader never sees
// half a file under the final name (an unfinished temporary is removed).
//
// Compressed (`--compress`): the bytes pass through zstd's streaming
// compressor (level 3, compressing on a second thread where libzstd has
// threads) and the file is NAME.zst, which `zstd -d`, pandas and polars read
// as they are. Not thread-safe.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fmt/format.h"

namespace weft {

class ResultFile {
 public:
  // Open creates DIR/NAME[.zst].tmp; `dir` must exist.
  static absl::StatusOr<std::unique_ptr<ResultFile>> Open(const std::string& dir, std::string_view name,
                                                          bool compress);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  fmt::memory_buffer& buffer() { return buffer_; }
  // Flush writes the buffer out when it holds 1 MiB or more, or `force`.
  void Flush(bool force = false);
  // Finish writes what is left, closes the file and renames it into place;
  // an error (a full disk) names the file.
  absl::Status Finish();

 private:
  ResultFile(std::string final_path, std::FILE* file) : final_(std::move(final_path)), file_(file) {}
  void Write(const char* data, size_t size);
  void Compress(const char* data, size_t size, bool end);

  std::string final_;
  std::FILE* file_;
  void* zstd_ = nullptr;         // ZSTD_CCtx*, kept opaque so that zstd.h stays out of this header
  std::vector<char> compressed_;  // zstd's output buffer
  fmt::memory_buffer buffer_;
  bool failed_ = false;           // a write fell short
};

// LazyResultFile: a ResultFile created only at its first row, for the files
// that exist only when a run has something to put in them (series.csv,
// flows.csv), so runs without it write what they wrote before.
class LazyResultFile {
 public:
  LazyResultFile(std::string dir, std::string_view name, std::string_view header, bool compress)
      : dir_(std::move(dir)), name_(name), header_(header), compress_(compress) {}
  // Buffer: where the next row goes (the file is opened, with its header, at
  // the first call); nullptr when it could not be created (Finish says so).
  fmt::memory_buffer* Buffer();
  void Flush() { file_->Flush(); }
  // Finish renames the file into place, if there is one.
  absl::Status Finish();

 private:
  std::string dir_;
  std::string name_;
  std::string header_;
  bool compress_;
  std::unique_ptr<ResultFile> file_;
  bool open_failed_ = false;
};

// ResultFileExists: DIR/NAME or DIR/NAME.zst is there.
bool ResultFileExists(const std::string& path);

// ReadResultFile calls `chunk(data, size)` with the bytes of `path`, in
// order, or, when `path` is absent and `path`.zst is there, with the bytes
// that file decompresses to. Stops at the first error, naming the file.
absl::Status ReadResultFile(const std::string& path, const std::function<absl::Status(const char*, size_t)>& chunk);

}  // namespace weft
