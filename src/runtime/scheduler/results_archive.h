// File: runtime/scheduler/results_archive.h
//
// The results archive: what retention (weftd scheduler --retain,
// --retain-age) compacts out of the scheduler's memory and journal is first
// appended here, in the state dir (results-archive.binpb), one
// length-delimited v1::ArchivedJob per job, so that Export still has every
// ended job's rows. The append is fsynced before the journal forgets the jobs;
// a crash between the two leaves a job both archived and journaled, and it is
// archived again later: readers keep the last record of an id.
//
// A crash mid-append leaves a record cut short at the end of the file. Open
// moves those bytes aside (results-archive.binpb.torn-OFFSET) and cuts the
// file there, so that later appends are read: without it, every record
// appended after the torn one would be out of reach (a reader cannot tell
// where the next record starts).
//
// To find one job (`weft status` of a compacted job) without reading the
// whole file, the archive keeps an index of segments: runs of up to 256
// records with their id range and byte range (32 bytes a segment, an eighth
// of a byte a job). Not thread-safe: the scheduler core calls it under its
// lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

class ResultsArchive {
 public:
  explicit ResultsArchive(std::filesystem::path state_dir);

  // Open reads the whole archive (absent file: none), returns every job by
  // id and builds the index; a torn last record is moved aside first.
  absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> Open();

  // Append appends `jobs` and fsyncs the file.
  absl::Status Append(const std::vector<v1::ArchivedJob>& jobs);

  // Find: the last record of `id`, reading only the segments whose id range
  // holds it; nullopt when none has it.
  absl::StatusOr<std::optional<v1::ArchivedJob>> Find(uint32_t id) const;

  // ReadAll: every job by id (the last record of each).
  absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> ReadAll() const;

  const std::filesystem::path& path() const { return path_; }
  size_t segments() const { return segments_.size(); }

 private:
  static constexpr uint32_t kRecordsPerSegment = 256;
  struct Segment {
    uint32_t min_id = 0, max_id = 0, records = 0;
    uint64_t begin = 0, end = 0;  // byte range in the file
  };

  // Index adds the record of `id` at bytes [begin, end) to the segments.
  void Index(uint32_t id, uint64_t begin, uint64_t end);
  // MoveTornTail: the bytes from `valid` to the end of the file, which do not
  // parse as a record, are copied aside and cut off.
  absl::Status MoveTornTail(uint64_t valid, uint64_t size);

  std::filesystem::path path_;
  std::vector<Segment> segments_;
};

}  // namespace weft::runtime
