// File: runtime/node/group_record.cc
#include "runtime/node/group_record.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "fmt/format.h"
#include "runtime/node/proc_usage.h"
#include "runtime/owned_files.h"

namespace weft::runtime {

std::string FormatGroupRecord(const GroupRecord& record) {
  return fmt::format("{} {} {}\n", record.pgid, record.start_ticks, record.boot_id.empty() ? "-" : record.boot_id);
}

std::optional<GroupRecord> ParseGroupRecord(std::string_view text) {
  std::istringstream in{std::string(text)};
  GroupRecord record;
  std::string boot;
  if (!(in >> record.pgid >> record.start_ticks >> boot) || record.pgid <= 1) return std::nullopt;
  if (boot != "-") record.boot_id = boot;
  return record;
}

absl::Status WriteGroupRecord(const std::filesystem::path& path, const GroupRecord& record) {
  const std::string text = FormatGroupRecord(record);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  const bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved_errno = errno;
  if (fd >= 0) close(fd);
  if (!ok) {
    return absl::FailedPreconditionError(
        fmt::format("cannot write the process group record {}: {}", path.string(), std::strerror(saved_errno)));
  }
  return absl::OkStatus();
}

GroupRecordSlots::~GroupRecordSlots() {
  if (fd_ < 0) return;
  close(fd_);
  unlink(path_.c_str());
}

absl::Status GroupRecordSlots::Open(const std::filesystem::path& path) {
  // A new file of our own: whatever is at the path (a link planted there
  // would have us truncate its target) is removed, never followed.
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        fmt::format("cannot create the process group records {}: {}", path.string(), std::strerror(errno)));
  }
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  path_ = path;
  free_slots_.clear();
  slot_count_ = 0;
  return absl::OkStatus();
}

absl::Status GroupRecordSlots::WriteSlot(int slot, std::string_view line) {
  const off_t offset = static_cast<off_t>(slot) * static_cast<off_t>(kSlotBytes);
  if (pwrite(fd_, line.data(), line.size(), offset) != static_cast<ssize_t>(line.size())) {
    return absl::FailedPreconditionError(
        fmt::format("cannot write the process group record in {}: {}", path_.string(), std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> GroupRecordSlots::Add(const GroupRecord& record) {
  std::string line = FormatGroupRecord(record);
  // A boot id too long for a slot (never seen: they are 36 characters) is
  // recorded as unknown; the start time still guards against pid reuse.
  if (line.size() > kSlotBytes) line = FormatGroupRecord({.pgid = record.pgid, .start_ticks = record.start_ticks});
  line.pop_back();
  line.resize(kSlotBytes - 1, ' ');
  line.push_back('\n');
  const bool reuse = !free_slots_.empty();
  const int slot = reuse ? free_slots_.back() : slot_count_;
  RETURN_IF_ERROR(WriteSlot(slot, line));
  if (reuse) {
    free_slots_.pop_back();
  } else {
    ++slot_count_;
  }
  return slot;
}

void GroupRecordSlots::Remove(int slot) {
  std::string blank(kSlotBytes - 1, ' ');
  blank.push_back('\n');
  // A slot that cannot be cleared stays recorded: the recovery then checks
  // the group against its start time before killing anything.
  (void)WriteSlot(slot, blank);
  free_slots_.push_back(slot);
}

std::vector<GroupRecord> ReadGroupRecords(const std::filesystem::path& running_dir) {
  std::vector<GroupRecord> records;
  if (!IsOwned(running_dir)) return records;  // another user's folder: nothing in it is ours
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(running_dir, ec)) {
    // Only the user's own regular files that others cannot write (issue 34, finding 1).
    std::error_code type_ec;
    if (!IsOwned(entry.path()) || !entry.is_regular_file(type_ec) || entry.is_symlink(type_ec)) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(std::string_view(" \0", 2)) == std::string::npos) continue;  // a free slot
      if (std::optional<GroupRecord> record = ParseGroupRecord(line)) records.push_back(*std::move(record));
    }
  }
  return records;
}

namespace {

// RunsAsUs: the process runs as this process's effective user (the owner
// of /proc/PID), as every task a runner starts does.
bool RunsAsUs(pid_t pid) {
  struct stat st {};
  return stat(fmt::format("/proc/{}", pid).c_str(), &st) == 0 && st.st_uid == geteuid();
}

// Proven: the record says which boot and which start time it is about.
bool Proven(const GroupRecord& record, std::string_view boot_id) {
  return record.start_ticks != 0 && !record.boot_id.empty() && !boot_id.empty() && record.boot_id == boot_id;
}

}  // namespace

bool IsSameGroup(const GroupRecord& record, std::string_view boot_id) {
  if (!Proven(record, boot_id)) return false;
  const std::optional<ProcStat> leader = ReadProcStat(record.pgid);
  return leader && leader->start_ticks == record.start_ticks && leader->pgrp == record.pgid && RunsAsUs(record.pgid);
}

int KillRecordedGroups(const std::filesystem::path& running_dir, int wait_ms) {
  std::error_code ec;
  if (!std::filesystem::is_directory(running_dir, ec)) return 0;
  if (!IsOwned(running_dir)) return 0;  // not ours: read nothing, remove nothing
  const std::string boot_id = BootId();
  absl::flat_hash_set<pid_t> killed;
  std::vector<GroupRecord> leaderless;
  for (const GroupRecord& record : ReadGroupRecords(running_dir)) {
    if (IsSameGroup(record, boot_id)) {
      if (kill(-record.pgid, SIGKILL) == 0) killed.insert(record.pgid);
    } else if (Proven(record, boot_id) && !ReadProcStat(record.pgid)) {
      leaderless.push_back(record);
    }
  }
  // A group whose leader is gone (reaped by init after our runner died) may
  // still have members; nothing proves the group id is still the task's,
  // so each member is: in that group, started after the recorded leader,
  // and run as this user. Only those are signalled.
  if (!leaderless.empty()) {
    for (const ProcStat& st : ListProcesses()) {
      for (const GroupRecord& record : leaderless) {
        if (st.pgrp == record.pgid && st.start_ticks >= record.start_ticks && RunsAsUs(st.pid) &&
            kill(st.pid, SIGKILL) == 0) {
          killed.insert(record.pgid);
        }
      }
    }
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(running_dir, ec)) files.push_back(entry.path());
  for (const std::filesystem::path& path : files) std::filesystem::remove(path, ec);
  // SIGKILL is delivered asynchronously; wait for the members to be gone
  // (zombies do not count: they run nothing and their parent reaps them).
  const timespec tick{.tv_sec = 0, .tv_nsec = 10'000'000};
  for (int waited_ms = 0; !killed.empty() && waited_ms < wait_ms; waited_ms += 10) {
    bool alive = false;
    for (const ProcStat& st : ListProcesses()) {
      if (st.state != 'Z' && killed.contains(st.pgrp)) {
        alive = true;
        break;
      }
    }
    if (!alive) break;
    nanosleep(&tick, nullptr);
  }
  return static_cast<int>(killed.size());
}

}  // namespace weft::runtime
