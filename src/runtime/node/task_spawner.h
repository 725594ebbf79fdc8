// File: runtime/node/task_spawner.h
//
// TaskSpawner makes a task's process: the clone/exec set-up of the node's
// task runner (task_runner.h), which decides what to start and keeps track
// of it once started.
//
// A command task's child is made with clone(CLONE_VM | CLONE_VFORK |
// CLONE_PIDFD), as posix_spawn makes its children (which cannot set
// PR_SET_PDEATHSIG itself): nothing of the daemon's address space is copied,
// so the cost does not grow with the daemon's memory as fork's does, and the
// pidfd comes with it. Spawn returns once the child has exec'd /bin/sh -c
// COMMAND in a process group of its own, in the task's cgroups, with its
// stdin, stdout and stderr, its environment and the default signal
// dispositions. The built-in task (builtin_work.h), which never execs, is a
// copy (clone without CLONE_VM) that does its work and exits. Every child
// gets PR_SET_PDEATHSIG=SIGKILL.
//
// Threading: not thread-safe (one stack for the children); the thread that
// spawns must outlive the children (PR_SET_PDEATHSIG fires when the thread
// that made them exits).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/node/builtin_work.h"

namespace weft::runtime {

// ChildSetup: what the child needs to become the task; on the parent's
// stack, which a CLONE_VM child reads directly. Pointers must stay valid
// until Spawn returns.
struct ChildSetup {
  pid_t parent = 0;
  int stdin_fd = -1;
  int out_fd = -1;
  int err_fd = -1;
  const char* command = nullptr;  // nullptr: the built-in task
  char* const* envp = nullptr;    // a command task's environment (TaskEnvironment)
  BuiltinJob builtin;             // the built-in task's work
  const char* cwd = nullptr;      // a command task runs in the work dir
  const int* cgroup_fds = nullptr;  // cgroup.procs files the child moves itself into
  size_t cgroup_fd_count = 0;
};

// Spawned: the child, or why there is none.
struct Spawned {
  pid_t pid = -1;  // -1: nothing started; `error` says why
  int pidfd = -1;
  std::string error;
};

// TaskEnvironment: a command task's environment: `base` (the daemon's) with
// the task's own variables set on top (NAME=value, replacing any of the
// same name). Built before the clone, because the child may not allocate;
// envp() is valid while both this and `base` live.
class TaskEnvironment {
 public:
  TaskEnvironment(const std::vector<std::string>& base, const std::vector<std::pair<std::string, std::string>>& own);
  TaskEnvironment(const TaskEnvironment&) = delete;
  TaskEnvironment& operator=(const TaskEnvironment&) = delete;
  char* const* envp() const { return envp_.data(); }

 private:
  std::vector<std::string> own_;
  std::vector<char*> envp_;
};

class TaskSpawner {
 public:
  // Captures the daemon's environment now (base_env()).
  TaskSpawner();
  TaskSpawner(const TaskSpawner&) = delete;
  TaskSpawner& operator=(const TaskSpawner&) = delete;

  const std::vector<std::string>& base_env() const { return base_env_; }

  // Spawn starts the child `setup` describes (see the file comment). If
  // /bin/sh cannot be executed the child exits 127, with the reason on its
  // stderr; a failure of clone itself is a Spawned without a pid.
  Spawned Spawn(ChildSetup& setup);

 private:
  // The stack a child runs on until it execs (a command task's child shares
  // this process's memory).
  static constexpr size_t kStackBytes = 64 * 1024;
  std::unique_ptr<char[]> stack_;
  std::vector<std::string> base_env_;  // the daemon's environment when the spawner was made
};

}  // namespace weft::runtime
