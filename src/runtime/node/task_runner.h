// File: runtime/node/task_runner.h
//
// TaskRunner runs a node's tasks as real processes and reports how they end:
// the piece of `weftd node` that forks, kills, reaps and measures (issue 7).
//
// Each task with a command runs as `/bin/sh -c COMMAND` in a process group of
// its own, in the work dir, with stdout and stderr in work_dir/tasks/LABEL.{out,err} and stdin
// from /dev/null. A task without a command is the built-in task: with duration
// 0 it ends at once without a process (cheap: no syscall beyond at most one
// eventfd write); with a duration it is a child process that spins one core
// until it has used that much cpu time (so, like the simulator's contention
// model, it takes longer on a loaded machine), killable and measured like any
// task. A phase of a phased task may instead be built-in I/O (a scratch
// file, loopback TCP) or a profiled phase (BuiltinProfile: cpu, memory,
// disk and net at once, paced, for a duration, in worker processes of the
// task's group).
//
// No orphans: Kill and KillAll SIGKILL the task's whole process group, and
// when a task's shell ends on its own, whatever it left running in its group
// is killed before the shell is reaped (the unreaped shell holds the group id,
// so the id cannot have been reused). Each running task's group is recorded in
// work_dir/running/ (cleared when reaped) so that KillLeftovers can kill
// the groups of a runner that died without cleaning up (kill -9 of the
// daemon). Every child also gets PR_SET_PDEATHSIG=SIGKILL. Where the node can
// make cgroups (task_cgroups.h), each process task also runs in a cgroup of
// its own, joined by the child before it execs: kills reach what left the
// process group (setsid), cpu and memory are also read from the cgroup, and
// the cgroups are recorded in work_dir/cgroups for KillLeftovers. Without
// one, a process that leaves its group on purpose (setsid) escapes.
//
// Launch: the runner decides what to start (output files, cgroups, the
// group record) and keeps track of it; the child itself is made by a
// TaskSpawner (task_spawner.h: clone, as posix_spawn does, with a pidfd),
// and a built-in task's work is builtin_work.h's. Start returns once a
// command task's child has exec'd /bin/sh. A launch writes to the file
// system: the two output files and one pwrite of the group record (a slot
// in running/groups-PID, see group_record.h).
//
// Wake-up: wake_fd() is an epoll fd holding a pidfd for each running process
// (readable once that process has exited) and an eventfd for tasks that end
// without a process. poll() it for POLLIN, then call Reap(). Chosen over
// signalfd/SIGCHLD because it needs no process-wide signal mask (the daemon
// has gRPC threads) and never reaps children that are not the runner's:
// Reap waits for its own pids only.
//
// Threading: not thread-safe; call every method from one thread. That thread
// must outlive the tasks it starts, because PR_SET_PDEATHSIG fires when the
// thread that forked exits, not the process. The process must not set
// SIGCHLD to SIG_IGN (the kernel would reap the children itself).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "core/time.h"
#include "runtime/node/builtin_work.h"
#include "runtime/node/group_record.h"
#include "runtime/node/task_cgroups.h"
#include "runtime/node/task_spawner.h"

namespace weft::runtime {

struct TaskSpec {
  uint64_t id = 0;                     // unique among this runner's running tasks
  std::string label;                   // for file names; sanitized by the runner
  std::optional<std::string> command;  // already substituted; run as /bin/sh -c COMMAND
  TimeUs builtin_duration_us = 0;      // without a command: cpu time to burn (0 = instant); kProfile: its length
  // Without a command, kDisk: write a scratch file of builtin_mb MB in
  // work_dir/scratch, flush it, drop it from the page cache, read it back and
  // remove it; kNet: read builtin_mb MB from builtin_pull's data port (or,
  // unset, send them to itself over a 127.0.0.1 TCP connection). 0 MB ends
  // at once.
  BuiltinWork builtin_work = BuiltinWork::kCpu;
  double builtin_mb = 0;
  DataPull builtin_pull;  // kNet and kProfile's net part: where the bytes come from
  // Without a command, kProfile: the rates a profiled phase runs at for
  // builtin_duration_us (wall clock, not cpu time).
  BuiltinProfile builtin_profile;
  // NAME=value pairs added to (or replacing) the daemon's environment for a
  // command task: WEFT_JOB, WEFT_STAGE, WEFT_TASK.
  std::vector<std::pair<std::string, std::string>> env;
  // The container the task runs in, as the node names its cgroup ("c0-3";
  // empty: none), and the container's size. With cgroups, the container is
  // a group with a cpu quota of container_cores and a memory limit of
  // container_mem_bytes, made when its first task starts and removed after
  // its last one ends; the task's own group is nested inside.
  std::string container;
  double container_cores = 0;
  int64_t container_mem_bytes = 0;
  // The task's own limits, outside a container (docs/runtime.md,
  // "Enforcement"): with cgroups, its group gets a cpu quota of limit_cores
  // and a memory limit of limit_mem_bytes before it starts (over the limit,
  // the kernel's OOM killer ends it). Negative: that one is not limited.
  double limit_cores = -1;
  int64_t limit_mem_bytes = -1;
};

struct TaskExit {
  uint64_t id = 0;
  int exit_code = 0;  // 0 ok; the shell's exit status; 128+signal when killed by a signal
  int signal = 0;     // the signal that ended the shell (0: it exited)
  bool killed = false;  // Kill or KillAll was called before the exit was reaped
  bool failed_to_start = false;
  // Why it failed to start (e.g. fork failed), or that the kernel's OOM
  // killer killed it (its cgroup says so); empty otherwise.
  std::string error;
  // User+sys cpu of the process group: the larger of the last SampleUsage
  // figure and what wait4 reports for the shell and the children it reaped.
  double cpu_seconds = 0;
  int64_t peak_rss_bytes = 0;  // the larger of the sampled group peak and the shell's ru_maxrss
  // Resident memory averaged over the samples (0 when none was taken).
  int64_t average_rss_bytes = 0;
  // Bytes of storage I/O, and of other I/O (ProcIo::other: network), over
  // the run: the larger of the sampled sums and the reaped leader's /proc io.
  uint64_t storage_bytes = 0;
  uint64_t net_bytes = 0;
  // The highest rates the samples saw (0 when none was taken).
  double peak_cpu_cores = 0;
  double peak_disk_mbps = 0;
  double peak_net_mbps = 0;
  // From the process's start to its reaping (0 for a task that ran without
  // a process or never started): the scheduler dates the attempt's start by it.
  int64_t run_us = 0;
  // A command task that failed on its own (not killed by the runner): the
  // last lines of its stderr file (stderr_tail.h), for the task-end report.
  std::string stderr_tail;
};

struct TaskUsage {
  uint64_t id = 0;
  double cpu_cores = 0;  // average since the previous SampleUsage (or since the start)
  int64_t rss_bytes = 0;  // resident memory summed over the group now
  double disk_mbps = 0;   // storage MB read and written per second, since the previous sample
  double net_mbps = 0;    // other I/O (sockets) MB per second, since the previous sample
};

class TaskRunner {
 public:
  // The work dir must exist when tasks are started; the runner creates
  // tasks/ and running/ inside it on the first Start.
  //
  // With a `cgroup_name` (TaskCgroups::GroupName), each process task runs in
  // a cgroup of its own under the node's group of that name, where the
  // machine lets this process make one (cgroups().Describe() says what was
  // found); without, or where it cannot, in its process group only.
  explicit TaskRunner(std::filesystem::path work_dir, std::string_view cgroup_name = {});
  // Kills and reaps every running task (KillAll).
  ~TaskRunner();
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  // Start launches a task. Errors (nothing started, nothing recorded):
  // AlreadyExists for an id still running; FailedPrecondition when the work
  // dir is missing or its output/record files cannot be written. A failure of
  // the launch itself (fork, pidfd_open) returns OK and is reported by Reap
  // as failed_to_start. If /bin/sh cannot be executed the task exits 127.
  absl::Status Start(const TaskSpec& spec);

  // Kill SIGKILLs the task's whole process group, and its cgroup when it has
  // one (so also what left the group); its exit (killed = true) comes from
  // Reap. Unknown or already reaped ids are ignored.
  void Kill(uint64_t id);

  // KillAll kills every running task and returns once all are reaped; their
  // exits are returned by the next Reap. `after_signals`, if given, runs
  // once every task is signalled, before the wait: where something else
  // holds the tasks frozen (the node's keeper), it must let them go there,
  // or they never die.
  void KillAll(const std::function<void()>& after_signals = {});

  // Reap returns the tasks that ended since the last call, without blocking.
  std::vector<TaskExit> Reap();

  // wake_fd becomes readable (POLLIN) when Reap may have something to return.
  int wake_fd() const { return epoll_fd_; }

  // SampleUsage measures every running process task from /proc (one pass
  // over all processes on the machine, so call it at heartbeat rate, not per
  // task). Tasks whose group has no member left report zero.
  std::vector<TaskUsage> SampleUsage();

  size_t running() const { return running_.size(); }
  const TaskCgroups& cgroups() const { return cgroups_; }
  // The limits the last started task asked for (TaskSpec::limit_*) and
  // which of them its cgroup got (none without cgroups), for the node's log.
  struct Limits {
    bool cpu_asked = false, mem_asked = false;
    TaskCgroups::LimitsSet set;
  };
  const Limits& last_limits() const { return last_limits_; }
  // CgroupOf: the relative name of a running task's cgroup ("t12"); empty
  // when the task has none.
  std::string CgroupOf(uint64_t id) const;

  // Where a task's output goes (also for tasks not started yet).
  std::filesystem::path StdoutPath(const TaskSpec& spec) const;
  std::filesystem::path StderrPath(const TaskSpec& spec) const;

  // KillLeftovers kills every process in the cgroups recorded in
  // work_dir/cgroups (TaskCgroups::KillRecorded) and SIGKILLs every process
  // group recorded in work_dir/running/
  // that is still the one recorded (same boot, and the leader, if alive, has
  // the recorded start time), removes the records, and waits (up to about 2
  // s) until no live member remains. For a node daemon restarting after kill
  // -9 and for `weft cluster down`; never on a work dir with a live runner.
  // A missing work dir or running/ is nothing to do.
  static void KillLeftovers(const std::filesystem::path& work_dir);

  // SafeFileName maps a label to a file name: characters outside
  // [A-Za-z0-9._-] become '_', a leading '.' becomes '_', at most 128
  // characters (a longer label keeps its first 111 and a hash of the whole,
  // so labels that differ only past the cut still get files of their own);
  // an empty label gives "task-ID".
  static std::string SafeFileName(std::string_view label, uint64_t id);

 private:
  struct Running {
    pid_t pid = 0;  // also the process group id
    int pidfd = -1;
    int record_slot = -1;  // in records_
    bool killed = false;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point last_sample_time;
    double last_cpu_seconds = 0;
    int64_t peak_rss_bytes = 0;
    uint64_t last_storage_bytes = 0;  // cumulative, never going back
    uint64_t last_net_bytes = 0;
    double rss_byte_seconds = 0;      // resident memory integrated over the sampled time
    double sampled_seconds = 0;
    double peak_cpu_cores = 0;
    double peak_disk_mbps = 0;
    double peak_net_mbps = 0;
    std::string scratch;  // a disk phase's scratch file, removed at the end whatever happened
    std::filesystem::path stderr_path;  // a command task's stderr file; empty: none
    std::string cgroup;   // relative name of its cgroup; empty: none
    std::string container;  // the container group it is nested in; empty: none
    bool mem_limited = false;  // its own group has a memory limit (its reservation)
  };

  // Placement: the cgroups a process task runs in (none without cgroups).
  struct Placement {
    std::string cgroup;     // its own group's relative name; empty: none
    std::string container;  // the container group it is nested in; empty: none
    std::vector<int> fds;   // the groups' cgroup.procs, for the child to join
  };

  absl::Status EnsureDirs();
  // StartProcess starts a task that needs a process: its output files, its
  // cgroups, the child, then Track.
  absl::Status StartProcess(const TaskSpec& spec);
  // Place makes the task's cgroups (and its container's, with the first of
  // its tasks) and sets their limits.
  Placement Place(const TaskSpec& spec);
  // Track records a started child's group (for KillLeftovers) and watches
  // its pidfd; if either fails the child is killed and reaped.
  absl::Status Track(uint64_t id, const Spawned& child, std::chrono::steady_clock::time_point started,
                     std::string scratch, const Placement& placement);
  void AddDone(TaskExit exit);
  // Finish reaps a task whose process has exited (its pidfd is readable).
  void Finish(uint64_t id);
  // RemoveCgroups retries the removal of task cgroups whose last members had
  // not exited yet when their task was reaped.
  void RemoveCgroups();
  // LeaveContainer: one task of `container` (may be empty: none) has ended
  // or failed to start; the container's group goes with its last task.
  void LeaveContainer(const std::string& container);

  std::filesystem::path work_dir_;
  TaskSpawner spawner_;
  GroupRecordSlots records_;  // running/groups-PID, opened with the dirs
  absl::Status init_status_;  // a failure to create the epoll fd or eventfd
  bool dirs_ready_ = false;
  int epoll_fd_ = -1;
  int event_fd_ = -1;          // signalled when a task ends without a process
  bool event_pending_ = false; // event_fd_ holds a count not yet read
  bool reaping_ = false;       // inside Reap, which returns what AddDone adds
  int dev_null_fd_ = -1;
  std::string boot_id_;
  absl::flat_hash_map<uint64_t, Running> running_;
  absl::flat_hash_map<int, uint64_t> id_of_pidfd_;
  std::vector<TaskExit> done_;
  TaskCgroups cgroups_;
  std::vector<std::string> cgroups_to_remove_;
  absl::flat_hash_map<std::string, int> container_tasks_;  // container group -> its running tasks
  Limits last_limits_;
};

}  // namespace weft::runtime
