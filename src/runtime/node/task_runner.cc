// File: runtime/node/task_runner.cc
#include "runtime/node/task_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/status.h"
#include "fmt/format.h"
#include "runtime/node/group_record.h"
#include "runtime/node/proc_usage.h"

namespace weft::runtime {
namespace {

std::string ErrnoText(std::string_view what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

int OpenOutput(const std::filesystem::path& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

double RusageCpuSeconds(const rusage& ru) {
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

// What the child needs to become the task; on the parent's stack, which a
// CLONE_VM child reads directly.
struct ChildSetup {
  pid_t parent = 0;
  int stdin_fd = -1;
  int out_fd = -1;
  int err_fd = -1;
  const char* command = nullptr;  // nullptr: the built-in task
  char* const* envp = nullptr;    // a command task's environment
  TimeUs builtin_cpu_us = 0;  // kProfile: the phase's length (wall clock)
  BuiltinWork builtin_work = BuiltinWork::kCpu;
  uint64_t builtin_bytes = 0;
  BuiltinProfile profile;  // kProfile
  const char* scratch = nullptr;  // kDisk, kProfile: the scratch file's path
  const char* cwd = nullptr;      // a command task runs in the work dir
  const int* cgroup_fds = nullptr;  // cgroup.procs files the child moves itself into
  size_t cgroup_fd_count = 0;
};

// The built-in I/O work, in the child: raw syscalls only (it is a copy of a
// process with threads, so nothing that may take a lock or allocate); its
// 1 MiB buffer is mapped, not on the child's small stack.
constexpr size_t kIoChunk = 1 << 20;

char* MapBuffer() {
  void* p = mmap(nullptr, kIoChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

// OpenScratch maps the write buffer (with something in every page) into
// `buf` and creates the scratch file: its fd, or -1 (no buffer) or -2 (no
// file), the child's exit codes.
int OpenScratch(const char* path, char*& buf) {
  buf = MapBuffer();
  if (buf == nullptr) return -1;
  for (size_t i = 0; i < kIoChunk; i += 4096) buf[i] = static_cast<char>(i >> 12);
  const int fd = open(path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
  return fd < 0 ? -2 : fd;
}

// DiskWork writes `bytes` to a fresh file, flushes it to storage, drops it
// from the page cache so the read really comes from the disk, reads it back
// and removes it. 0 on success.
int DiskWork(const char* path, uint64_t bytes) {
  char* buf = nullptr;
  const int fd = OpenScratch(path, buf);
  if (fd < 0) return -fd;
  int result = 0;
  for (uint64_t done = 0; done < bytes && result == 0;) {
    const ssize_t n = write(fd, buf, std::min<uint64_t>(kIoChunk, bytes - done));
    if (n <= 0) result = 3;
    done += n > 0 ? static_cast<uint64_t>(n) : 0;
  }
  if (result == 0 && fdatasync(fd) != 0) result = 4;
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (result == 0 && lseek(fd, 0, SEEK_SET) != 0) result = 5;
  for (uint64_t done = 0; done < bytes && result == 0;) {
    const ssize_t n = read(fd, buf, kIoChunk);
    if (n <= 0) result = 6;
    done += n > 0 ? static_cast<uint64_t>(n) : 0;
  }
  close(fd);
  unlink(path);
  return result;
}

// The wall clock of a profiled phase's pacing, in microseconds.
int64_t MonotonicUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * kUsPerSecond + ts.tv_nsec / 1000;
}

void NapUs(int64_t us) {
  timespec ts{us / kUsPerSecond, (us % kUsPerSecond) * 1000};
  nanosleep(&ts, nullptr);
}

// Ahead: paced work (per_us units per microsecond since start_us; 0: not
// paced) that has done `done` is ahead of its schedule.
bool Ahead(uint64_t done, double per_us, int64_t start_us) {
  return per_us > 0 && static_cast<double>(done) > per_us * static_cast<double>(MonotonicUs() - start_us);
}

// NetWork sends `bytes` from one end of a 127.0.0.1 TCP connection to the
// other, both ends in this process, driven by poll; paced at per_us bytes
// per microsecond (MB/s) from start_us when per_us > 0. 0 on success.
int NetWork(uint64_t bytes, double per_us = 0, int64_t start_us = 0) {
  char* buf = MapBuffer();
  if (buf == nullptr) return 1;
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return 2;
  }
  const int sender = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (sender < 0) return 3;
  if (connect(sender, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) return 4;
  const int receiver = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (receiver < 0) return 5;
  close(listener);
  uint64_t sent = 0;
  uint64_t received = 0;
  while (received < bytes) {
    const bool may_send = sent < bytes && !Ahead(sent, per_us, start_us);
    // Ahead of its pace with nothing in flight: look again in a millisecond.
    const bool idle = !may_send && received == sent;
    pollfd fds[2] = {{receiver, POLLIN, 0}, {sender, static_cast<short>(may_send ? POLLOUT : 0), 0}};
    const int ready = poll(fds, 2, idle ? 1 : 10000);
    if (ready < 0 || (ready == 0 && !idle)) return 6;
    if (may_send && (fds[1].revents & POLLOUT) != 0) {
      const ssize_t n = write(sender, buf, std::min<uint64_t>(kIoChunk, bytes - sent));
      if (n < 0 && errno != EAGAIN) return 7;
      sent += n > 0 ? static_cast<uint64_t>(n) : 0;
    }
    if ((fds[0].revents & (POLLIN | POLLHUP)) != 0) {
      const ssize_t n = read(receiver, buf, kIoChunk);
      if (n == 0 || (n < 0 && errno != EAGAIN)) return 8;
      received += n > 0 ? static_cast<uint64_t>(n) : 0;
    }
  }
  close(sender);
  close(receiver);
  return 0;
}

// PacedCpuWork burns `cores` (at most one) of this process's cpu, paced by
// the wall clock from start_us, until it has used cores x duration_us.
int PacedCpuWork(double cores, int64_t duration_us, int64_t start_us) {
  const double target_us = cores * static_cast<double>(duration_us);
  for (;;) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    const int64_t used_us = ts.tv_sec * kUsPerSecond + ts.tv_nsec / 1000;
    if (static_cast<double>(used_us) >= target_us) return 0;
    if (Ahead(static_cast<uint64_t>(used_us), cores, start_us)) {
      NapUs(1000);
      continue;
    }
    for (int i = 0; i < 20000; ++i) asm volatile("");  // work the optimizer cannot remove
  }
}

// PacedDiskWork writes `bytes` to a scratch file at per_us bytes per
// microsecond from start_us, flushing every 4 MiB to storage and writing
// from the start again past 64 MiB (the file stays small), then removes it.
int PacedDiskWork(const char* path, uint64_t bytes, double per_us, int64_t start_us) {
  constexpr uint64_t kFlushBytes = 4 << 20;
  constexpr uint64_t kFileBytes = 64 << 20;
  char* buf = nullptr;
  const int fd = OpenScratch(path, buf);
  if (fd < 0) return -fd;
  int result = 0;
  uint64_t offset = 0;
  uint64_t unflushed = 0;
  for (uint64_t done = 0; done < bytes && result == 0;) {
    if (Ahead(done, per_us, start_us)) {
      NapUs(1000);
      continue;
    }
    if (offset >= kFileBytes) offset = 0;
    const ssize_t n = pwrite(fd, buf, std::min<uint64_t>(kIoChunk, bytes - done), static_cast<off_t>(offset));
    if (n <= 0) result = 3;
    const uint64_t wrote = n > 0 ? static_cast<uint64_t>(n) : 0;
    done += wrote;
    offset += wrote;
    unflushed += wrote;
    if (unflushed >= kFlushBytes) {
      if (fdatasync(fd) != 0) result = 4;
      unflushed = 0;
    }
  }
  if (result == 0 && fdatasync(fd) != 0) result = 4;
  close(fd);
  unlink(path);
  return result;
}

// StartWorker starts a copy of this (single-threaded) process that exits
// with work()'s result, in this process's group; raw clone, as fork without
// the atfork handlers. The copy dies with this process. Its pid, or -1.
template <typename Work>
pid_t StartWorker(Work work) {
  const long pid = syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0);
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    _exit(work());
  }
  return static_cast<pid_t>(pid);
}

// ProfiledWork: a profiled phase (BuiltinProfile): its cpu, disk and net
// parts in worker processes started first (so that they do not share the
// memory's pages, which /proc would count once per process), its memory
// held here; returns once every part is done and `duration_us` has passed
// since the start. 0 on success.
int ProfiledWork(const BuiltinProfile& p, int64_t duration_us, const char* scratch) {
  const int64_t start_us = MonotonicUs();
  int workers = 0;
  const int cpus = static_cast<int>(std::ceil(p.cores - 1e-9));
  for (int k = 0; k < cpus; ++k) {
    if (StartWorker([&] { return PacedCpuWork(p.cores / cpus, duration_us, start_us); }) < 0) return 20;
    ++workers;
  }
  const auto bytes = [duration_us](double mbps) {  // MB/s is bytes per microsecond
    return static_cast<uint64_t>(mbps * static_cast<double>(duration_us));
  };
  if (p.disk_mbps > 0 && scratch != nullptr) {
    if (StartWorker([&] { return PacedDiskWork(scratch, bytes(p.disk_mbps), p.disk_mbps, start_us); }) < 0) return 20;
    ++workers;
  }
  if (p.net_mbps > 0) {
    if (StartWorker([&] { return NetWork(bytes(p.net_mbps), p.net_mbps, start_us); }) < 0) return 20;
    ++workers;
  }
  if (p.mem_gb > 0) {
    const auto size = static_cast<size_t>(p.mem_gb * 1e9);
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return 21;
    for (size_t i = 0; i < size; i += 4096) static_cast<volatile char*>(m)[i] = 1;
  }
  for (int64_t left = duration_us - (MonotonicUs() - start_us); left > 0;
       left = duration_us - (MonotonicUs() - start_us)) {
    NapUs(left);
  }
  int result = 0;
  while (workers > 0) {
    int status = 0;
    const pid_t got = waitpid(-1, &status, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return 22;
    --workers;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) result = 23;
  }
  return result;
}

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
    // The built-in task (a copy of the parent, not sharing its memory): burn
    // cpu until this process has used builtin_cpu_us, holding none of the
    // daemon's descriptors (sockets, files) meanwhile.
    close_range(0, ~0U, 0);
    if (setup.builtin_work == BuiltinWork::kDisk) _exit(DiskWork(setup.scratch, setup.builtin_bytes));
    if (setup.builtin_work == BuiltinWork::kNet) _exit(NetWork(setup.builtin_bytes));
    if (setup.builtin_work == BuiltinWork::kProfile) {
      _exit(ProfiledWork(setup.profile, setup.builtin_cpu_us, setup.scratch));
    }
    for (;;) {
      timespec ts;
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      if (ts.tv_sec * kUsPerSecond + ts.tv_nsec / 1000 >= setup.builtin_cpu_us) _exit(0);
      for (int i = 0; i < 20000; ++i) asm volatile("");  // work the optimizer cannot remove
    }
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

struct Spawned {
  pid_t pid = -1;  // -1: nothing started; `error` says why
  int pidfd = -1;
  std::string error;
};

// Spawn starts the child with clone(2), which also hands back a pidfd.
// A command task is started the way posix_spawn does it (CLONE_VM |
// CLONE_VFORK): nothing of the daemon's address space is copied, which fork
// would do page table by page table (the more the daemon holds, the longer),
// and the group exists and the shell is exec'd by the time Spawn returns.
// posix_spawn itself cannot set PR_SET_PDEATHSIG, hence our own child code.
// The built-in task never execs, so it needs a memory of its own: a plain
// copy (fork without the atfork handlers, which it does not need).
Spawned Spawn(ChildSetup& setup, char* stack_top) {
  int flags = CLONE_PIDFD | SIGCHLD;
  if (setup.command != nullptr) flags |= CLONE_VM | CLONE_VFORK;
  Spawned out;
  const sigset_t old_mask = BlockAllSignals();
  out.pid = clone(BecomeTask, stack_top, flags, &setup, &out.pidfd);
  if (out.pid < 0) out.error = ErrnoText("clone");
  RestoreSignals(old_mask);
  return out;
}

}  // namespace

TaskRunner::TaskRunner(std::filesystem::path work_dir, std::string_view cgroup_name)
    : work_dir_(std::move(work_dir)), child_stack_(std::make_unique<char[]>(kChildStackBytes)) {
  if (!cgroup_name.empty()) cgroups_ = TaskCgroups::Open(cgroup_name, work_dir_ / "cgroups");
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  dev_null_fd_ = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (epoll_fd_ < 0 || event_fd_ < 0 || dev_null_fd_ < 0) {
    init_status_ = absl::InternalError(ErrnoText("task runner: creating its epoll fd, eventfd or /dev/null fd"));
    return;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = event_fd_;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, event_fd_, &ev) < 0) {
    init_status_ = absl::InternalError(ErrnoText("task runner: epoll_ctl"));
  }
  boot_id_ = BootId();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) base_env_.emplace_back(*e);
}

TaskRunner::~TaskRunner() {
  KillAll();
  // A killed member may take a moment to exit; its cgroup goes once it has.
  for (int i = 0; i < 100 && !cgroups_to_remove_.empty(); ++i) {
    RemoveCgroups();
    if (!cgroups_to_remove_.empty()) usleep(10000);
  }
  cgroups_.Close();
  for (int fd : {epoll_fd_, event_fd_, dev_null_fd_}) {
    if (fd >= 0) close(fd);
  }
}

std::filesystem::path TaskRunner::StdoutPath(const TaskSpec& spec) const {
  return work_dir_ / "tasks" / (SafeFileName(spec.label, spec.id) + ".out");
}

std::filesystem::path TaskRunner::StderrPath(const TaskSpec& spec) const {
  return work_dir_ / "tasks" / (SafeFileName(spec.label, spec.id) + ".err");
}

std::string TaskRunner::SafeFileName(std::string_view label, uint64_t id) {
  if (label.empty()) return fmt::format("task-{}", id);
  std::string name(label.substr(0, 128));
  for (char& c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    if (!safe) c = '_';
  }
  if (name.front() == '.') name.front() = '_';  // never ".", ".." or a hidden file
  return name;
}

absl::Status TaskRunner::EnsureDirs() {
  if (dirs_ready_) return absl::OkStatus();
  std::error_code ec;
  if (!std::filesystem::is_directory(work_dir_, ec)) {
    return absl::FailedPreconditionError(fmt::format("work dir {} does not exist", work_dir_.string()));
  }
  for (const char* sub : {"tasks", "running", "scratch"}) {
    std::filesystem::create_directories(work_dir_ / sub, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          fmt::format("cannot create {}: {}", (work_dir_ / sub).string(), ec.message()));
    }
  }
  // One records file per runner; the pid keeps two runners' files apart.
  RETURN_IF_ERROR(records_.Open(work_dir_ / "running" / fmt::format("groups-{}", getpid())));
  dirs_ready_ = true;
  return absl::OkStatus();
}

void TaskRunner::AddDone(TaskExit exit) {
  done_.push_back(std::move(exit));
  // Inside Reap the exit is returned by that same call: no wake-up needed.
  if (!event_pending_ && !reaping_) {
    const uint64_t one = 1;
    event_pending_ = write(event_fd_, &one, sizeof one) == sizeof one;
  }
}

absl::Status TaskRunner::Start(const TaskSpec& spec) {
  if (!init_status_.ok()) return init_status_;
  last_limits_ = Limits{};
  if (running_.contains(spec.id)) {
    return absl::AlreadyExistsError(fmt::format("task {} is already running", spec.id));
  }
  const bool builtin_io = spec.builtin_work == BuiltinWork::kDisk || spec.builtin_work == BuiltinWork::kNet;
  if (!spec.command && (builtin_io ? spec.builtin_mb <= 0 : spec.builtin_duration_us <= 0)) {
    AddDone(TaskExit{.id = spec.id});
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(EnsureDirs());
  return StartProcess(spec);
}

absl::Status TaskRunner::StartProcess(const TaskSpec& spec) {
  int out_fd = dev_null_fd_;
  int err_fd = dev_null_fd_;
  auto close_outputs = [&] {
    if (out_fd != dev_null_fd_) close(out_fd);
    if (err_fd != dev_null_fd_) close(err_fd);
  };
  if (spec.command) {
    out_fd = OpenOutput(StdoutPath(spec));
    err_fd = out_fd < 0 ? -1 : OpenOutput(StderrPath(spec));
    if (out_fd < 0 || err_fd < 0) {
      const absl::Status status = absl::FailedPreconditionError(
          ErrnoText(fmt::format("cannot create the output files of task {} in {}", spec.id, (work_dir_ / "tasks").string())));
      if (out_fd >= 0) close(out_fd);
      return status;
    }
  }
  // The daemon's environment with the task's own variables set on top; built
  // here because the child may not allocate.
  std::vector<std::string> own;
  std::vector<char*> envp;
  if (spec.command) {
    own.reserve(spec.env.size());
    for (const auto& [name, value] : spec.env) own.push_back(name + "=" + value);
    for (const std::string& entry : base_env_) {
      const bool replaced = std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& var) {
        return entry.size() > var.first.size() && entry.starts_with(var.first) && entry[var.first.size()] == '=';
      });
      if (!replaced) envp.push_back(const_cast<char*>(entry.c_str()));
    }
    for (std::string& entry : own) envp.push_back(entry.data());
    envp.push_back(nullptr);
  }
  const bool disk = !spec.command && (spec.builtin_work == BuiltinWork::kDisk ||
                                      (spec.builtin_work == BuiltinWork::kProfile && spec.builtin_profile.disk_mbps > 0));
  const std::string scratch = disk ? (work_dir_ / "scratch" / (SafeFileName(spec.label, spec.id) + ".tmp")).string() : "";
  ChildSetup setup{.parent = getpid(),
                   .stdin_fd = dev_null_fd_,
                   .out_fd = out_fd,
                   .err_fd = err_fd,
                   .command = spec.command ? spec.command->c_str() : nullptr,
                   .envp = envp.data(),
                   .builtin_cpu_us = spec.builtin_duration_us,
                   .builtin_work = spec.command ? BuiltinWork::kCpu : spec.builtin_work,
                   .builtin_bytes = static_cast<uint64_t>(std::max(0.0, spec.builtin_mb) * 1e6),
                   .profile = spec.builtin_profile,
                   .scratch = disk ? scratch.c_str() : nullptr,
                   .cwd = work_dir_.c_str()};
  const bool in_container = cgroups_.enabled() && !spec.container.empty();
  if (in_container && container_tasks_[spec.container]++ == 0) {
    for (int fd : cgroups_.Create(spec.container)) close(fd);
    cgroups_.SetLimits(spec.container, spec.container_cores, spec.container_mem_bytes);
  }
  const std::string cgroup = in_container ? fmt::format("{}/t{}", spec.container, spec.id) : fmt::format("t{}", spec.id);
  const std::vector<int> cgroup_fds = cgroups_.enabled() ? cgroups_.Create(cgroup) : std::vector<int>{};
  // The task's own limits (its reservation), set before it joins its group.
  // A task in a container is bounded by the container's group instead.
  if (!in_container) {
    last_limits_.cpu_asked = spec.limit_cores >= 0;
    last_limits_.mem_asked = spec.limit_mem_bytes >= 0;
    if (!cgroup_fds.empty() && (last_limits_.cpu_asked || last_limits_.mem_asked)) {
      last_limits_.set = cgroups_.SetLimits(cgroup, spec.limit_cores, spec.limit_mem_bytes);
    }
  }
  setup.cgroup_fds = cgroup_fds.data();
  setup.cgroup_fd_count = cgroup_fds.size();
  // The run's clock starts before the child does: a built-in paces itself
  // from its own start, so a start taken after the bookkeeping below would
  // make run_us shorter than the work it timed.
  const auto started = std::chrono::steady_clock::now();
  Spawned child = Spawn(setup, child_stack_.get() + kChildStackBytes);
  close_outputs();
  for (int fd : cgroup_fds) close(fd);
  const std::string task_cgroup = cgroup_fds.empty() ? "" : cgroup;
  const std::string container = in_container ? spec.container : "";
  if (child.pid < 0) {
    if (!task_cgroup.empty()) cgroups_.Remove(task_cgroup);
    LeaveContainer(container);
    AddDone(TaskExit{.id = spec.id, .exit_code = 127, .failed_to_start = true, .error = std::move(child.error)});
    return absl::OkStatus();
  }
  const pid_t pid = child.pid;
  const int pidfd = child.pidfd;
  // A command task's child has made its group and exec'd by now (CLONE_VFORK);
  // a built-in task's may not have run yet, so its group is also made from
  // this side, so that a Kill right away reaches it.
  if (!spec.command) setpgid(pid, pid);
  auto kill_and_reap = [this, pid, pidfd, &task_cgroup, &container] {
    kill(-pid, SIGKILL);
    if (!task_cgroup.empty()) {
      cgroups_.Kill(task_cgroup);
      cgroups_to_remove_.push_back(task_cgroup);
    }
    LeaveContainer(container);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    close(pidfd);
  };
  // The record comes before anything else can fail, so a crash from here on
  // leaves the group findable by KillLeftovers.
  const std::optional<ProcStat> stat = ReadProcStat(pid);
  const absl::StatusOr<int> slot = records_.Add(
      GroupRecord{.pgid = pid, .start_ticks = stat ? stat->start_ticks : 0, .boot_id = boot_id_});
  if (!slot.ok()) {
    kill_and_reap();
    return slot.status();
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = pidfd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pidfd, &ev) < 0) {
    std::string error = ErrnoText("epoll_ctl");
    records_.Remove(*slot);
    kill_and_reap();
    AddDone(TaskExit{.id = spec.id, .exit_code = 127, .failed_to_start = true, .error = std::move(error)});
    return absl::OkStatus();
  }
  running_.emplace(spec.id, Running{.pid = pid, .pidfd = pidfd, .record_slot = *slot, .started = started,
                                    .last_sample_time = started, .scratch = scratch, .cgroup = task_cgroup,
                                    .container = container, .mem_limited = last_limits_.set.mem});
  id_of_pidfd_.emplace(pidfd, spec.id);
  return absl::OkStatus();
}

void TaskRunner::Kill(uint64_t id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  it->second.killed = true;
  // The leader is not reaped until Finish, so its pid (= the group id) is still ours.
  kill(-it->second.pid, SIGKILL);
  if (!it->second.cgroup.empty()) cgroups_.Kill(it->second.cgroup);
}

std::string TaskRunner::CgroupOf(uint64_t id) const {
  auto it = running_.find(id);
  return it == running_.end() ? std::string() : it->second.cgroup;
}

void TaskRunner::RemoveCgroups() {
  // A container that has tasks again is no longer to remove.
  std::erase_if(cgroups_to_remove_,
                [this](const std::string& rel) { return container_tasks_.contains(rel) || cgroups_.Remove(rel); });
}

void TaskRunner::LeaveContainer(const std::string& container) {
  if (container.empty()) return;
  auto it = container_tasks_.find(container);
  if (it == container_tasks_.end() || --it->second > 0) return;
  container_tasks_.erase(it);
  if (!cgroups_.Remove(container)) cgroups_to_remove_.push_back(container);
}

void TaskRunner::KillAll() {
  std::vector<uint64_t> ids;
  ids.reserve(running_.size());
  for (const auto& [id, task] : running_) ids.push_back(id);
  for (uint64_t id : ids) Kill(id);
  for (uint64_t id : ids) {
    pollfd p{.fd = running_.at(id).pidfd, .events = POLLIN, .revents = 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    Finish(id);
  }
}

void TaskRunner::Finish(uint64_t id) {
  auto it = running_.find(id);
  Running& task = it->second;
  // Whatever the shell left in its group dies with it. The shell is an
  // unreaped zombie, so the group id still names this group. Its cgroup
  // also holds what left the group (setsid), and has counted the cpu of
  // every member, also of those that exited unreaped by the task.
  kill(-task.pid, SIGKILL);
  TaskCgroups::Usage in_cgroup;
  if (!task.cgroup.empty()) {
    cgroups_.Kill(task.cgroup);
    in_cgroup = cgroups_.Read(task.cgroup);
  }
  // The zombie's I/O figures (with its reaped children's) are still readable.
  const std::optional<ProcIo> io = ReadProcIo(task.pid);
  int status = 0;
  rusage ru{};
  pid_t got;
  do {
    got = wait4(task.pid, &status, 0, &ru);
  } while (got < 0 && errno == EINTR);
  TaskExit exit{.id = id, .killed = task.killed};
  exit.run_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - task.started).count();
  if (got == task.pid) {
    exit.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    exit.cpu_seconds = std::max(task.last_cpu_seconds, RusageCpuSeconds(ru));
    exit.peak_rss_bytes = std::max(task.peak_rss_bytes, static_cast<int64_t>(ru.ru_maxrss) * 1024);
  } else {
    // Only if someone else reaped our child (SIGCHLD set to SIG_IGN).
    exit.exit_code = 128 + SIGKILL;
    exit.error = ErrnoText("wait4");
    exit.cpu_seconds = task.last_cpu_seconds;
    exit.peak_rss_bytes = task.peak_rss_bytes;
  }
  exit.cpu_seconds = std::max(exit.cpu_seconds, in_cgroup.cpu_seconds.value_or(0));
  if (!task.killed && in_cgroup.oom_kills.value_or(0) > 0) {
    // The task's status alone (137) does not say who sent the SIGKILL.
    exit.error = !task.container.empty() ? "killed by the kernel's OOM killer: over its container's memory limit"
                 : task.mem_limited ? "killed by the kernel's OOM killer: over its memory reservation (its cgroup's limit)"
                                    : "killed by the kernel's OOM killer (the machine ran out of memory)";
  }
  exit.storage_bytes = std::max(task.last_storage_bytes, io ? io->storage() : 0);
  exit.net_bytes = std::max(task.last_net_bytes, io ? io->other() : 0);
  exit.average_rss_bytes =
      task.sampled_seconds > 0 ? static_cast<int64_t>(task.rss_byte_seconds / task.sampled_seconds) : 0;
  exit.peak_cpu_cores = task.peak_cpu_cores;
  exit.peak_disk_mbps = task.peak_disk_mbps;
  exit.peak_net_mbps = task.peak_net_mbps;
  if (!task.scratch.empty()) unlink(task.scratch.c_str());  // a disk phase killed before it removed its file
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, task.pidfd, nullptr);
  close(task.pidfd);
  id_of_pidfd_.erase(task.pidfd);
  records_.Remove(task.record_slot);
  if (!task.cgroup.empty() && !cgroups_.Remove(task.cgroup)) cgroups_to_remove_.push_back(task.cgroup);
  LeaveContainer(task.container);
  running_.erase(it);
  AddDone(std::move(exit));
}

std::vector<TaskExit> TaskRunner::Reap() {
  if (!cgroups_to_remove_.empty()) RemoveCgroups();
  if (event_pending_) {
    uint64_t count = 0;
    if (read(event_fd_, &count, sizeof count) == sizeof count) event_pending_ = false;
  }
  constexpr int kBatch = 64;
  epoll_event events[kBatch];
  int n = 0;
  reaping_ = true;
  do {
    n = epoll_wait(epoll_fd_, events, kBatch, 0);
    for (int i = 0; i < n; ++i) {
      auto it = id_of_pidfd_.find(events[i].data.fd);
      if (it != id_of_pidfd_.end()) Finish(it->second);
    }
  } while (n == kBatch);
  reaping_ = false;
  return std::exchange(done_, {});
}

std::vector<TaskUsage> TaskRunner::SampleUsage() {
  std::vector<TaskUsage> out;
  if (running_.empty()) return out;
  absl::flat_hash_set<pid_t> groups;
  for (const auto& [id, task] : running_) groups.insert(task.pid);
  const absl::flat_hash_map<pid_t, GroupUsage> usage = SampleGroups(groups);
  const auto now = std::chrono::steady_clock::now();
  out.reserve(running_.size());
  for (auto& [id, task] : running_) {
    TaskUsage u{.id = id};
    GroupUsage group;
    const auto g = usage.find(task.pid);
    if (g != usage.end()) group = g->second;
    // The cgroup, where there is one, also sees members outside the
    // process group and the cpu of members that have exited.
    const TaskCgroups::Usage in_cgroup = task.cgroup.empty() ? TaskCgroups::Usage{} : cgroups_.Read(task.cgroup);
    group.cpu_seconds = std::max(group.cpu_seconds, in_cgroup.cpu_seconds.value_or(0));
    group.rss_bytes = std::max(group.rss_bytes, in_cgroup.rss_bytes.value_or(0));
    if (g != usage.end() || in_cgroup.cpu_seconds) {
      // A member that exits unreaped by the group takes its cpu out of the
      // sum; never let the running total go backwards.
      const double cpu = std::max(task.last_cpu_seconds, group.cpu_seconds);
      const double dt = std::chrono::duration<double>(now - task.last_sample_time).count();
      const uint64_t storage = std::max(task.last_storage_bytes, group.io.storage());
      const uint64_t net = std::max(task.last_net_bytes, group.io.other());
      u.cpu_cores = dt > 0 ? (cpu - task.last_cpu_seconds) / dt : 0;
      u.rss_bytes = group.rss_bytes;
      u.disk_mbps = dt > 0 ? static_cast<double>(storage - task.last_storage_bytes) / 1e6 / dt : 0;
      u.net_mbps = dt > 0 ? static_cast<double>(net - task.last_net_bytes) / 1e6 / dt : 0;
      task.last_cpu_seconds = cpu;
      task.last_storage_bytes = storage;
      task.last_net_bytes = net;
      task.peak_rss_bytes = std::max(task.peak_rss_bytes, u.rss_bytes);
      task.rss_byte_seconds += static_cast<double>(u.rss_bytes) * dt;
      task.sampled_seconds += dt;
      task.peak_cpu_cores = std::max(task.peak_cpu_cores, u.cpu_cores);
      task.peak_disk_mbps = std::max(task.peak_disk_mbps, u.disk_mbps);
      task.peak_net_mbps = std::max(task.peak_net_mbps, u.net_mbps);
    }
    task.last_sample_time = now;
    out.push_back(u);
  }
  std::sort(out.begin(), out.end(), [](const TaskUsage& a, const TaskUsage& b) { return a.id < b.id; });
  return out;
}

void TaskRunner::KillLeftovers(const std::filesystem::path& work_dir) {
  TaskCgroups::KillRecorded(work_dir / "cgroups", /*wait_ms=*/2000);
  KillRecordedGroups(work_dir / "running", /*wait_ms=*/2000);
}

}  // namespace weft::runtime
