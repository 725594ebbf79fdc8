// File: runtime/node/task_cgroups.h
//
// TaskCgroups: the cgroups a node daemon keeps for its tasks (issue 20 bug
// 8, issue 12 §4). Each node has one group per hierarchy, named after the
// node and its work dir, under the daemon's own cgroup there; each task (and
// each container, with its tasks nested inside) is a group below it. A
// process joins its task's group before it execs, so everything it starts
// stays in it, also children that `setsid` or double-fork: killing the
// group kills the whole tree.
//
// What a machine gives decides what is used (Describe() says it for the
// log):
//   - cgroup2 (any cgroup2 mount, e.g. /sys/fs/cgroup or a hybrid's
//     /sys/fs/cgroup/unified): membership, `cgroup.kill` where the kernel has
//     it (5.14), else `cgroup.freeze` and a SIGKILL of every member; cpu time
//     from `cpu.stat`, memory from `memory.stat` when the memory controller
//     is on there, cpu and memory limits (`cpu.max`, `memory.max`) when those
//     controllers are on;
//   - cgroup v1 controllers `memory`, `cpu`, `cpuacct` and `freezer` where
//     they are mounted (hybrid machines): resident memory (`total_rss`) and
//     `memory.limit_in_bytes`, cpu time (`cpuacct.usage`), a cpu quota
//     (`cpu.cfs_quota_us`), and freezing while a group is killed when there is
//     no cgroup2;
//   - none (no writable hierarchy, e.g. not root): Open returns a disabled
//     object and the runner falls back to process groups.
//
// The node's groups are recorded in WORK_DIR/cgroups (one directory a line)
// so that KillRecorded can find them after the daemon died (kill -9): a
// restarted node and `weft cluster down` kill every process in them and
// remove them.
//
// Names given to Create/Kill/... are paths relative to the node's group
// ("t12", "c3/t12"). Not thread-safe; plain files only, no state beyond the
// paths.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::runtime {

class TaskCgroups {
 public:
  // What one group uses now, summed over its members (and its nested groups).
  struct Usage {
    std::optional<double> cpu_seconds;  // cumulative, including members that exited
    std::optional<int64_t> rss_bytes;   // resident anonymous memory now
    // Processes of the group the kernel's OOM killer killed (cgroup2
    // memory.events, v1 memory.oom_control): a task over its container's
    // memory limit dies this way.
    std::optional<int64_t> oom_kills;
  };

  // Disabled: every call does nothing.
  TaskCgroups() = default;

  // Open finds the hierarchies this process may create groups in and
  // creates the node's group `name` in each (reusing one that exists),
  // recording them in `record_file`. Disabled when none is usable.
  static TaskCgroups Open(std::string_view name, const std::filesystem::path& record_file);

  // GroupName: the node group's name for node `node_name` working in
  // `work_dir`: "weft-NAME-HASH", the hash of the work dir keeping two nodes
  // of the same name on one machine (two test clusters) apart.
  static std::string GroupName(std::string_view node_name, const std::filesystem::path& work_dir);

  bool enabled() const { return !hierarchies_.empty(); }
  // Describe: what is used, for the node's log.
  std::string Describe() const;

  // Create makes group `rel` in every hierarchy and returns a descriptor of
  // each one's cgroup.procs, open for writing: the child writes "0" to each
  // before it execs, which moves it in. The caller closes them. Empty when
  // disabled or when creation failed (the task then runs without one).
  std::vector<int> Create(std::string_view rel);

  // Kill SIGKILLs every process in group `rel` and its nested groups.
  void Kill(std::string_view rel) const;

  // Remove deletes group `rel` (and nested groups) everywhere; false while a
  // member has not yet exited (retry later).
  bool Remove(std::string_view rel) const;

  // Read measures group `rel` (fields are empty where no hierarchy gives them).
  Usage Read(std::string_view rel) const;

  // SetLimits sets a cpu quota of `cores` and a memory limit of `mem_bytes`
  // on group `rel` where the hierarchies allow (a negative amount: that one
  // is not set); returns which were set.
  struct LimitsSet {
    bool cpu = false;
    bool mem = false;
  };
  LimitsSet SetLimits(std::string_view rel, double cores, int64_t mem_bytes) const;

  // FreezeControl: the node group's freezer file and the values that
  // freeze and thaw it (cgroup2 `cgroup.freeze` 1/0, v1 `freezer.state`
  // FROZEN/THAWED); an empty file when there is no freezer. Freezing the
  // node's group freezes every task group in it.
  struct FreezeControl {
    std::filesystem::path file;
    std::string freeze;
    std::string thaw;
  };
  FreezeControl NodeFreezeControl() const;
  // ThawNode thaws the node's group (nothing to do when it is not frozen).
  void ThawNode() const;

  // Path of group `rel` in the hierarchy that gives membership (for tests).
  std::filesystem::path MembershipPath(std::string_view rel) const;

  // Close removes the node's own groups (after every task group is gone)
  // and its record.
  void Close();

  // KillRecorded kills every process in the groups listed in `record_file`
  // and their nested groups, removes those groups, waits (up to `wait_ms`)
  // for the members to exit, and deletes the record. Nothing to do when the
  // file is missing, or is not the user's own regular file, or others can
  // write it; a listed group that is not this work dir's node group (named
  // GroupName(..., work dir) on a cgroup file system) is ignored (issue 34,
  // finding 1). Returns how many processes it signalled.
  static int KillRecorded(const std::filesystem::path& record_file, int wait_ms);
  // KillAndRemove does the same for the node groups `dirs` (each must lie on
  // a cgroup file system), without a record.
  static int KillAndRemove(const std::vector<std::filesystem::path>& dirs, int wait_ms);

  // NodeDirs: the node's group in each hierarchy.
  std::vector<std::filesystem::path> NodeDirs() const;

 private:
  enum class Kind { kV2, kMemory, kCpu, kCpuacct, kFreezer };
  struct Hierarchy {
    Kind kind;
    std::filesystem::path node_dir;  // the node's group in this hierarchy
  };
  const Hierarchy* Find(Kind kind) const;
  // The hierarchy whose cgroup.procs lists the members: cgroup2 if present.
  const Hierarchy* Membership() const;

  std::vector<Hierarchy> hierarchies_;
  std::filesystem::path record_file_;
  bool has_kill_file_ = false;  // cgroup2's cgroup.kill
};

}  // namespace weft::runtime
