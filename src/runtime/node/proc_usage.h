// File: runtime/node/proc_usage.h
//
// Reading processes from /proc for the node's task runner: one process's
// /proc/PID/stat, and the cpu time and resident memory summed over process
// groups (a task runs in a group of its own, so the group is the task). Plain
// functions with no state; safe to call from any thread.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace weft::runtime {

// ProcStat is the part of /proc/PID/stat the runner needs (proc(5) fields).
struct ProcStat {
  pid_t pid = 0;
  char state = '?';              // field 3: R, S, D, Z (zombie), ...
  pid_t pgrp = 0;                // field 5
  uint64_t cpu_ticks = 0;        // fields 14-17: utime+stime+cutime+cstime
  uint64_t start_ticks = 0;      // field 22: start time after boot, in clock ticks
  int64_t rss_pages = 0;         // field 24
};

// ParseProcStat parses the text of a /proc/PID/stat file; nullopt when it is
// malformed. The command name (field 2) may hold spaces and parentheses, so
// the fields after it are found from the last ')'.
std::optional<ProcStat> ParseProcStat(std::string_view text);

// ReadProcStat reads /proc/PID/stat; nullopt when the process does not exist
// (or vanished while being read).
std::optional<ProcStat> ReadProcStat(pid_t pid);

// ListProcesses reads the stat of every process on the machine (each pid
// directory under /proc); processes that vanish while listed are skipped.
std::vector<ProcStat> ListProcesses();

// ProcIo is the part of /proc/PID/io the runner needs (proc(5)): bytes
// passed through read/write calls (rchar, wchar) and bytes that really went
// to or came from storage (read_bytes, write_bytes). A process's figures
// include those of the children it has reaped; a zombie's are still readable.
struct ProcIo {
  uint64_t rchar = 0;
  uint64_t wchar = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  // storage: bytes read from and written to storage.
  uint64_t storage() const { return read_bytes + write_bytes; }
  // other: bytes moved by read/write calls that were not storage I/O
  // (sockets, pipes, cached files), the larger of the two directions: what a
  // task sends or receives over the network.
  uint64_t other() const {
    const uint64_t in = rchar > read_bytes ? rchar - read_bytes : 0;
    const uint64_t out = wchar > write_bytes ? wchar - write_bytes : 0;
    return std::max(in, out);
  }
};

// ParseProcIo parses the text of a /proc/PID/io file (missing keys are 0).
ProcIo ParseProcIo(std::string_view text);
// ReadProcIo reads /proc/PID/io; nullopt when unreadable (gone, or no
// per-task I/O accounting in the kernel).
std::optional<ProcIo> ReadProcIo(pid_t pid);

// GroupUsage is what a process group uses right now.
struct GroupUsage {
  // Cpu seconds of the live members and of the children they have reaped
  // (utime+stime+cutime+cstime): a member's reaped children are no longer in
  // the listing, so nothing is counted twice.
  double cpu_seconds = 0;
  int64_t rss_bytes = 0;
  int live_members = 0;  // members that are not zombies
  ProcIo io;             // summed over the members (ProcIo: with their reaped children)
};

// SampleGroups sums usage over the members of each of `pgids` in one pass
// over /proc. A group with no member is absent from the result.
absl::flat_hash_map<pid_t, GroupUsage> SampleGroups(const absl::flat_hash_set<pid_t>& pgids);

// BootId returns this boot's id (/proc/sys/kernel/random/boot_id), or "" when
// unreadable. A pid recorded in another boot means nothing in this one.
std::string BootId();

// ClockTicksPerSecond and PageSizeBytes convert /proc units (cached sysconf).
double ClockTicksPerSecond();
int64_t PageSizeBytes();

}  // namespace weft::runtime
