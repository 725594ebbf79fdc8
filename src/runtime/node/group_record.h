// File: runtime/node/group_record.h
//
// The on-disk record of a running task's process group (work_dir/running/ID,
// one line "PGID START_TICKS BOOT_ID"), written by TaskRunner when it starts
// a process and removed when it reaps it, and the recovery that kills every
// group still recorded after the runner died without cleaning up. Plain
// functions; safe from any thread, but never run KillRecordedGroups on the
// directory of a live runner.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace weft::runtime {

struct GroupRecord {
  pid_t pgid = 0;            // the group leader's pid
  uint64_t start_ticks = 0;  // the leader's start time (/proc/PID/stat field 22); 0 = unknown
  std::string boot_id;       // the boot the pid belongs to; "" = unknown
};

std::string FormatGroupRecord(const GroupRecord& record);
// nullopt when the text is not a record (e.g. a half-written file).
std::optional<GroupRecord> ParseGroupRecord(std::string_view text);

// WriteGroupRecord writes `record` to `path` (FailedPrecondition on failure,
// with the path and the reason).
absl::Status WriteGroupRecord(const std::filesystem::path& path, const GroupRecord& record);

// IsSameGroup says whether killing group `record.pgid` now would hit the
// recorded group, judged from the current boot id and the current process
// table: a different boot, or a live leader pid with another start time (the
// pid was reused, so the old group is gone), means no.
bool IsSameGroup(const GroupRecord& record, std::string_view boot_id);

// KillRecordedGroups SIGKILLs every still-matching group recorded in
// `running_dir`, deletes every record (matching or not, readable or not),
// and waits up to `wait_ms` for the killed groups to have no live member.
// Returns how many groups it signalled. A missing directory is nothing to do.
int KillRecordedGroups(const std::filesystem::path& running_dir, int wait_ms);

}  // namespace weft::runtime
