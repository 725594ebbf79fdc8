// File: runtime/node/group_record.h
//
// The on-disk record of a running task's process group (one line "PGID
// START_TICKS BOOT_ID" in a file under work_dir/running/), written by
// TaskRunner when it starts a process and cleared when it reaps it, and the
// recovery that kills every group still recorded after the runner died
// without cleaning up.
//
// A runner keeps its records as fixed-size slots of one file
// (GroupRecordSlots), so a launch and a reap each cost one pwrite instead of
// creating and unlinking a file: creating a file allocates an inode, which is
// the most expensive step of a launch on some file systems (about 0.7 ms of
// kernel cpu on the project VM's journal-less ext4). The recovery reads every
// file in running/ line by line, so a one-record file (WriteGroupRecord, as
// older runners wrote them) is read as well.
//
// Plain functions are safe from any thread; a GroupRecordSlots is not
// thread-safe. Never run KillRecordedGroups on the directory of a live runner.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace weft::runtime {

struct GroupRecord {
  pid_t pgid = 0;            // the group leader's pid
  uint64_t start_ticks = 0;  // the leader's start time (/proc/PID/stat field 22); 0 = unknown
  std::string boot_id;       // the boot the pid belongs to; "" = unknown
};

std::string FormatGroupRecord(const GroupRecord& record);
// nullopt when the text is not a record (e.g. a half-written file).
std::optional<GroupRecord> ParseGroupRecord(std::string_view text);

// WriteGroupRecord writes `record` alone to the file `path`
// (FailedPrecondition on failure, with the path and the reason): the format
// of runners before GroupRecordSlots, still read by the recovery.
absl::Status WriteGroupRecord(const std::filesystem::path& path, const GroupRecord& record);

// GroupRecordSlots holds one runner's records as lines of kSlotBytes in one
// file; a free slot is a line of spaces. Closing it removes the file.
class GroupRecordSlots {
 public:
  static constexpr size_t kSlotBytes = 128;  // divides the page size: a slot never straddles two pages

  GroupRecordSlots() = default;
  ~GroupRecordSlots();
  GroupRecordSlots(const GroupRecordSlots&) = delete;
  GroupRecordSlots& operator=(const GroupRecordSlots&) = delete;

  // Open creates (or empties) the file at `path`; FailedPrecondition with the
  // path and the reason when it cannot.
  absl::Status Open(const std::filesystem::path& path);
  bool is_open() const { return fd_ >= 0; }

  // Add writes `record` into a free slot and returns the slot's index;
  // FailedPrecondition when the write fails (e.g. the disk is full).
  absl::StatusOr<int> Add(const GroupRecord& record);
  // Remove clears a slot returned by Add and frees it for reuse.
  void Remove(int slot);

 private:
  absl::Status WriteSlot(int slot, std::string_view line);

  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<int> free_slots_;
  int slot_count_ = 0;  // slots the file has (used or free)
};

// ReadGroupRecords returns the records of every file in `running_dir`
// (blank slots and lines that are not records are skipped); empty when the
// directory is missing. Only the user's own regular files that others
// cannot write, in a folder of the user's own, are read (issue 34, finding
// 1: a planted record must not make a node kill what it names).
std::vector<GroupRecord> ReadGroupRecords(const std::filesystem::path& running_dir);

// IsSameGroup says whether killing group `record.pgid` now would hit the
// recorded group, judged from the current boot id and the current process
// table: only a record of this boot with a start time, whose leader is alive
// with that start time, still leads its group and runs as this user, is.
bool IsSameGroup(const GroupRecord& record, std::string_view boot_id);

// KillRecordedGroups SIGKILLs every still-matching group recorded in
// `running_dir` (of a group whose leader is gone, the members that started
// after it and run as this user), deletes every record (matching or not, readable or not),
// and waits up to `wait_ms` for the killed groups to have no live member.
// Returns how many groups it signalled. A missing directory is nothing to do.
int KillRecordedGroups(const std::filesystem::path& running_dir, int wait_ms);

}  // namespace weft::runtime
