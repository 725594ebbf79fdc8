// File: runtime/node/node_keeper.h
//
// NodeKeeper: a small process that `weftd node` forks at start to look after
// its tasks when the daemon itself cannot:
//   - the daemon dies (kill -9): the keeper, which holds a pidfd of it, kills
//     what the daemon left (TaskRunner::KillLeftovers: its cgroups, then its
//     recorded process groups) at once, instead of at the next restart or
//     `weft cluster down` (issue 20 bug 8);
//   - the node's lease runs out (issue 34, finding 3): the daemon publishes,
//     in memory it shares with the keeper, until when its schedulers let its
//     tasks run (SetLease: the end of the lease they last renewed, on the
//     boot-time clock). Past it the keeper freezes the tasks: the node's
//     cgroup (`cgroup.freeze`, v1 `freezer.state`) or, without one, a
//     SIGSTOP of every recorded process group that is still the recorded
//     one, again at every poll (a task started meanwhile is stopped too).
//     It also freezes them while it sees the daemon stopped (SIGSTOP, a
//     debugger) for two polls in a row, the common case, long before the
//     lease runs out. Once the daemon runs again under a lease, or a later
//     lease is published, it thaws them (or SIGCONTs the groups it
//     stopped). It polls every kPollMs.
// The keeper runs in a session of its own (setsid), so a signal to the
// daemon's process group (Ctrl-Z at a terminal, `kill -STOP -- -PGID`) does
// not reach it: a stopped daemon renews nothing, and its keeper freezes its
// tasks when the lease runs out. The daemon publishes a lease only after it
// has killed what its schedulers gave up, so what the keeper thaws may run.
//
// The keeper is forked twice from the daemon before the daemon starts its
// threads, so it is not the daemon's child (nothing that lists the daemon's
// children, its tasks, sees it); it keeps no descriptor of the daemon's but
// its own. The daemon's NodeKeeper object kills it when destroyed (a normal
// exit cleans up by itself). Not thread-safe: use from the daemon's main
// thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>

#include "runtime/node/task_cgroups.h"

namespace weft::runtime {

class NodeKeeper {
 public:
  // kPollMs: how often the keeper compares the lease with the clock, so how
  // late past a lease's end the tasks may still run (the scheduler's
  // lease margin covers it, with room to spare).
  static constexpr int kPollMs = 20;
  // kNoLease: nothing to enforce (no scheduler that grants leases is up, so
  // no task of one runs).
  static constexpr int64_t kNoLease = std::numeric_limits<int64_t>::max();

  // BootTimeNs: CLOCK_BOOTTIME in ns, the clock of leases on a node: shared
  // by every process of the machine, monotonic, and counting a suspend (a
  // suspended machine's lease has run out when it wakes).
  static int64_t BootTimeNs();

  // Start forks the keeper for the node working in `work_dir` with the
  // groups of `cgroups`; nullptr (and nothing started) when it cannot.
  static std::unique_ptr<NodeKeeper> Start(const std::filesystem::path& work_dir, const TaskCgroups& cgroups);
  ~NodeKeeper();
  NodeKeeper(const NodeKeeper&) = delete;
  NodeKeeper& operator=(const NodeKeeper&) = delete;

  // SetLease publishes until when (BootTimeNs) the tasks may run; kNoLease
  // for no limit. Starts at kNoLease.
  void SetLease(int64_t until_ns) { shared_->lease_until_ns.store(until_ns); }
  // Frozen: the keeper holds the tasks frozen now (for the log and tests).
  bool frozen() const { return shared_->frozen.load() != 0; }

  pid_t pid() const { return pid_; }

 private:
  // A page shared with the keeper.
  struct Shared {
    std::atomic<int64_t> lease_until_ns{kNoLease};
    std::atomic<int> frozen{0};    // 1 while the keeper holds the tasks frozen
    std::atomic<pid_t> keeper{0};  // its pid, set as it starts
  };
  NodeKeeper(pid_t pid, Shared* shared) : pid_(pid), shared_(shared) {}
  pid_t pid_;
  Shared* shared_;
};

}  // namespace weft::runtime
