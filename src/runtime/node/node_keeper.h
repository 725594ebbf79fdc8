// File: runtime/node/node_keeper.h
//
// NodeKeeper: a small process that `weftd node` forks at start to look after
// its tasks when the daemon itself cannot (issue 20 bug 8):
//   - the daemon dies (kill -9): the keeper, which holds a pidfd of it, kills
//     what the daemon left (TaskRunner::KillLeftovers: its cgroups, then its
//     recorded process groups) at once, instead of at the next restart or
//     `weft cluster down`;
//   - the daemon is stopped (SIGSTOP, a debugger) for two polls in a row
//     (0.1 s apart): the keeper freezes the node's cgroup, so its tasks stop
//     with it, and raises a flag in memory it shares with the daemon. The
//     daemon, once it runs again, takes the flag (TakeFrozen), decides what
//     its tasks have become (killed if its scheduler has given up on the
//     node meanwhile) and thaws them. The keeper never thaws: only the
//     daemon knows when that is safe.
// Without a cgroup (TaskCgroups disabled) the keeper only does the first.
//
// The keeper is forked twice from the daemon before the daemon starts its
// threads, so it is not the daemon's child (nothing that lists the daemon's
// children, its tasks, sees it); it keeps no descriptor of the daemon's but
// its own three. The daemon's NodeKeeper object kills it when destroyed (a
// normal exit cleans up by itself). Not thread-safe: use from the daemon's main
// thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "runtime/node/task_cgroups.h"

namespace weft::runtime {

class NodeKeeper {
 public:
  // Start forks the keeper for the node working in `work_dir` with the
  // groups of `cgroups`; nullptr (and nothing started) when it cannot.
  static std::unique_ptr<NodeKeeper> Start(const std::filesystem::path& work_dir, const TaskCgroups& cgroups);
  ~NodeKeeper();
  NodeKeeper(const NodeKeeper&) = delete;
  NodeKeeper& operator=(const NodeKeeper&) = delete;

  // TakeFrozen: true (once) when the keeper has frozen the node's tasks
  // since the last call; the caller must then Thaw them through TaskCgroups.
  bool TakeFrozen();

  pid_t pid() const { return pid_; }

 private:
  // A page shared with the keeper.
  struct Shared {
    std::atomic<int> frozen{0};   // 1 once the keeper froze the tasks
    std::atomic<pid_t> keeper{0};  // its pid, set as it starts
  };
  NodeKeeper(pid_t pid, Shared* shared) : pid_(pid), shared_(shared) {}
  pid_t pid_;
  Shared* shared_;
};

}  // namespace weft::runtime
