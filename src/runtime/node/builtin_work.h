// File: runtime/node/builtin_work.h
//
// The built-in work of a task without a command (docs/runtime.md,
// "Built-in tasks"): burn cpu, write and read back a scratch file, move
// bytes over TCP from a node's data port, or all of them at once at given rates for a given
// time (a profiled phase). The node's task runner (task_runner.h) runs it in
// a child process of its own, made for the task by the spawner
// (task_spawner.h), which calls RunBuiltin and exits with its result.
//
// Threading: RunBuiltin runs in a copy of a process that had threads, so it
// makes raw syscalls only: nothing that may take a lock or allocate.
#pragma once

#include <sys/socket.h>

#include <cstdint>

#include "core/time.h"
#include "runtime/node/data_request.h"

namespace weft::runtime {

// What a built-in task (no command) does: burn cpu, write and read back a
// scratch file, or move bytes over TCP (a phase of a phased task),
// or all of them at once at given rates for a given time (a profiled phase).
enum class BuiltinWork : uint8_t { kCpu, kDisk, kNet, kProfile };

// BuiltinProfile: what a profiled phase does for its builtin_duration_us
// (kProfile), all at once, each paced by the wall clock from the phase's
// start so that alone on an idle machine the phase lasts its duration:
// burns `cores` of cpu (one process per started core, each its share:
// cores-seconds in all, so on a loaded machine it takes longer, as the
// built-in cpu task does), holds `mem_gb` of memory (1e9 bytes, written
// once), writes `disk_mbps` MB/s to a scratch file (flushed every 4 MiB,
// rewritten from the start past 64 MiB so it stays small) and reads
// `net_mbps` MB/s from its data pull (BuiltinJob::pull; unset: sends them
// to itself over loopback TCP). It ends when every part has
// done its work and the duration has passed.
struct BuiltinProfile {
  double cores = 0;
  double mem_gb = 0;
  double disk_mbps = 0;
  double net_mbps = 0;
};

// DataPull: where a net phase's bytes come from: a node's data port
// (data_server.h) and the request to send it, both made before the clone.
// Unset (no address): the bytes go to itself over 127.0.0.1, as a node
// whose scheduler issues no transfers does.
struct DataPull {
  sockaddr_storage address{};
  socklen_t address_len = 0;  // 0: unset
  DataRequestWire request{};
  uint64_t bytes = 0;  // what the request asks for (the scheduler's count: its ticket's)
};

// BuiltinJob: one built-in task's work, as its child does it.
struct BuiltinJob {
  BuiltinWork work = BuiltinWork::kCpu;
  // kCpu: the cpu time to burn (so on a loaded machine it takes longer);
  // kProfile: the phase's length (wall clock).
  TimeUs duration_us = 0;
  // kDisk: write a scratch file of this many bytes, flush it, drop it from
  // the page cache, read it back and remove it; kNet: read this many bytes
  // from `pull`'s data port (or send them to itself over 127.0.0.1 when it
  // is unset).
  uint64_t bytes = 0;
  DataPull pull;  // kNet, and kProfile's net part
  BuiltinProfile profile;         // kProfile
  const char* scratch = nullptr;  // kDisk, kProfile: the scratch file's path
};

// RunBuiltin does `job` in the calling process and returns the exit code
// the task's child ends with: 0 once done, a small positive code naming the
// step that failed otherwise. Only in a built-in task's own child (see the
// file comment): a profiled phase starts and waits for worker processes.
int RunBuiltin(const BuiltinJob& job);

}  // namespace weft::runtime
