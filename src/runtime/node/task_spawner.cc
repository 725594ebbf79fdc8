// File: runtime/node/task_spawner.cc
#include "runtime/node/task_spawner.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace weft::runtime {
namespace {

// ReportExecFailure writes why /bin/sh could not be started to the task's
// stderr (already fd 2), so a 127 comes with a reason. Async-signal-safe:
// the errno in decimal, no allocation.
void ReportExecFailure(int err) {
  char line[64] = "weftd node: cannot exec /bin/sh: errno ";
  size_t n = std::strlen(line);
  char digits[16];
  size_t d = 0;
  do {
    digits[d++] = static_cast<char>('0' + err % 10);
    err /= 10;
  } while (err > 0 && d < sizeof digits);
  while (d > 0 && n + 2 < sizeof line) line[n++] = digits[--d];
  line[n++] = '\n';
  [[maybe_unused]] ssize_t w = write(STDERR_FILENO, line, n);
}

// MoveFd makes `to` a copy of `from` that stays open across exec (dup2 of a
// descriptor onto itself would keep its close-on-exec flag).
bool MoveFd(int from, int to) {
  if (from == to) return fcntl(to, F_SETFD, 0) == 0;
  return dup2(from, to) == to;
}

// What the child does before it becomes the task. A command task's child
// shares the parent's memory (CLONE_VM, CLONE_VFORK: the parent thread waits
// until it execs or exits) and the daemon has threads, so only
// async-signal-safe calls: raw syscalls, no allocation, no locks, nothing
// written but the stack and errno (which the waiting parent does not read).
int BecomeTask(void* arg) {
  const ChildSetup& setup = *static_cast<const ChildSetup*>(arg);
  // Into the task's cgroup first, so everything it will start is born there
  // ("0" is the writer itself).
  for (size_t i = 0; i < setup.cgroup_fd_count; ++i) {
    [[maybe_unused]] ssize_t w = write(setup.cgroup_fds[i], "0", 1);
  }
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before prctl took effect: then nobody would kill us.
  if (getppid() != setup.parent) _exit(128 + SIGKILL);
  // All signals are blocked (see Spawn). Every disposition goes back to the
  // default before they are unblocked: a parent's handler must never run in
  // a child sharing its memory, and ignored signals would stay ignored across
  // exec (the daemon ignores SIGPIPE). The task starts with the defaults and
  // an empty mask.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setup.command == nullptr) {
    // The built-in task (a copy of the parent, not sharing its memory),
    // holding none of the daemon's descriptors (sockets, files) meanwhile.
    close_range(0, ~0U, 0);
    _exit(RunBuiltin(setup.builtin));
  }
  if (!MoveFd(setup.stdin_fd, STDIN_FILENO) || !MoveFd(setup.out_fd, STDOUT_FILENO) ||
      !MoveFd(setup.err_fd, STDERR_FILENO)) {
    _exit(127);
  }
  // Every descriptor of the daemon (sockets, the journal) closes at exec.
  close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (setup.cwd != nullptr && chdir(setup.cwd) != 0) {
    ReportExecFailure(errno);
    _exit(127);
  }
  const char* argv[] = {"/bin/sh", "-c", setup.command, nullptr};
  execve("/bin/sh", const_cast<char* const*>(argv), setup.envp);
  ReportExecFailure(errno);  // E2BIG: the command is over one exec argument's limit
  _exit(127);
}

// BlockAllSignals sets the calling thread's signal mask to every signal
// (also the two glibc reserves for itself, which sigfillset leaves out) and
// returns the previous mask; so no handler of the daemon's runs in a child
// that shares its memory.
sigset_t BlockAllSignals() {
  sigset_t all;
  sigset_t old;
  std::memset(&all, 0xff, sizeof all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8);
  return old;
}

void RestoreSignals(const sigset_t& mask) { syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, nullptr, _NSIG / 8); }

}  // namespace

TaskEnvironment::TaskEnvironment(const std::vector<std::string>& base,
                                 const std::vector<std::pair<std::string, std::string>>& own) {
  own_.reserve(own.size());
  for (const auto& [name, value] : own) own_.push_back(name + "=" + value);
  for (const std::string& entry : base) {
    const bool replaced = std::any_of(own.begin(), own.end(), [&](const auto& var) {
      return entry.size() > var.first.size() && entry.starts_with(var.first) && entry[var.first.size()] == '=';
    });
    if (!replaced) envp_.push_back(const_cast<char*>(entry.c_str()));
  }
  for (std::string& entry : own_) envp_.push_back(entry.data());
  envp_.push_back(nullptr);
}

TaskSpawner::TaskSpawner() : stack_(std::make_unique<char[]>(kStackBytes)) {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) base_env_.emplace_back(*e);
}

// Spawn starts the child with clone(2), which also hands back a pidfd.
// A command task is started the way posix_spawn does it (CLONE_VM |
// CLONE_VFORK): nothing of the daemon's address space is copied, which fork
// would do page table by page table (the more the daemon holds, the longer),
// and the group exists and the shell is exec'd by the time Spawn returns.
// posix_spawn itself cannot set PR_SET_PDEATHSIG, hence our own child code.
// The built-in task never execs, so it needs a memory of its own: a plain
// copy (fork without the atfork handlers, which it does not need).
Spawned TaskSpawner::Spawn(ChildSetup& setup) {
  int flags = CLONE_PIDFD | SIGCHLD;
  if (setup.command != nullptr) flags |= CLONE_VM | CLONE_VFORK;
  Spawned out;
  const sigset_t old_mask = BlockAllSignals();
  out.pid = clone(BecomeTask, stack_.get() + kStackBytes, flags, &setup, &out.pidfd);
  if (out.pid < 0) out.error = fmt::format("clone: {}", std::strerror(errno));
  RestoreSignals(old_mask);
  return out;
}

}  // namespace weft::runtime
