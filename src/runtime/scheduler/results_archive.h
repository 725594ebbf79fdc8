// File: runtime/scheduler/results_archive.h
//
// The results archive: what retention (weftd scheduler --retain,
// --retain-age) compacts out of the scheduler's memory and journal is first
// appended here, in the state dir (results-archive.binpb), one
// length-delimited v1::ArchivedJob per job, so that Export still has every
// ended job's rows. The append is fsynced before the journal forgets the jobs;
// a crash between the two leaves a job both archived and journaled, and it is
// archived again later: readers keep the last record of an id.
#pragma once

#include <filesystem>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

std::filesystem::path ResultsArchivePath(const std::filesystem::path& state_dir);

// AppendArchive appends `jobs` and fsyncs the file.
absl::Status AppendArchive(const std::filesystem::path& path, const std::vector<v1::ArchivedJob>& jobs);

// ReadArchive reads every archived job by id (absent file: none). Reading
// stops at a record that does not parse: a last record cut short by a crash
// mid-append, whose jobs the journal still has.
absl::StatusOr<std::map<uint32_t, v1::ArchivedJob>> ReadArchive(const std::filesystem::path& path);

}  // namespace weft::runtime
