// File: trace/gz_input.h
//
// GzInput reads a file that is plain or gzip-compressed, in the caller's
// chunks, never holding more of it than a fixed-size input buffer (the trace
// readers' row and line readers, trace/row_reader.h, are its users).
//
// A file is gzip when it starts with gzip's two magic bytes; anything else
// is passed through as it is (as zlib's gzread did, which this replaces).
// gzip is inflated with ISA-L's igzip (isa-l/igzip_lib.h), 2-3 times faster
// than zlib's inflate, which was 15-21 % of reading the google-2011 trace
// (BENCHMARKS.md, "google-2011 reader: igzip inflate (session 11)").
//
// The file's bytes, as gzip -d gives them:
//   - members concatenated (cat a.gz b.gz) are read one after the other;
//   - after a whole member, bytes that do not start with the magic bytes
//     (zeros padding a block, other garbage) are ignored, as zlib's gzread
//     and gzip -d ignore them;
//   - a member cut short (a truncated download, a file that is only a gzip
//     header) is an error, "unexpected end of file". zlib's gzread returned
//     the bytes up to the cut as if the file ended there and reported no
//     error, so a truncated trace part silently lost its last rows;
//   - a corrupt member is an error: the crc32 and length in each member's
//     trailer are checked.
// Errors are InvalidArgument, one line naming the file:
//   task_events/part-00000-of-00500.csv.gz: cannot read: unexpected end of file
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace weft {

class GzInput {
 public:
  // The compressed bytes read from the file at a time.
  static constexpr size_t kInputChunk = size_t{1} << 17;

  // Open opens `path` and reads its first bytes to tell plain from gzip.
  // `input_chunk` is kInputChunk but in tests, which cut the input into
  // pieces of a few bytes to cut every header, block and trailer.
  static absl::StatusOr<std::unique_ptr<GzInput>> Open(const std::string& path, size_t input_chunk = kInputChunk);
  ~GzInput();
  GzInput(const GzInput&) = delete;
  GzInput& operator=(const GzInput&) = delete;

  // Read fills `buf` with up to `size` bytes, fewer only at the end of the
  // file; 0 at the end.
  absl::StatusOr<size_t> Read(char* buf, size_t size);
  const std::string& path() const { return path_; }
  bool gzip() const { return inflater_ != nullptr; }

 private:
  struct Inflater;  // igzip's state, kept out of this header
  GzInput(int fd, std::string path, size_t input_chunk);

  absl::StatusOr<size_t> ReadPlain(char* buf, size_t size);
  absl::StatusOr<size_t> Inflate(char* buf, size_t size);
  // Fill reads more of the file after the unread input (moved to the
  // buffer's front), until it holds `want` bytes or the file ends.
  absl::Status Fill(size_t want);
  // StartMember checks the header flags of the member at the unread input.
  absl::Status StartMember();
  size_t unread() const { return end_ - pos_; }
  absl::Status Error(std::string_view what) const;

  int fd_;
  std::string path_;
  std::vector<uint8_t> input_;  // input_[pos_, end_) is read from the file, not yet used
  size_t pos_ = 0, end_ = 0;
  bool file_end_ = false;  // the file is read to its end
  std::unique_ptr<Inflater> inflater_;  // null for a plain file
  // Where the inflater is: in a member, between members (looking for the
  // next one's magic bytes), or past the last one.
  enum class Member { kIn, kBetween, kPastLast } member_ = Member::kIn;
};

}  // namespace weft
