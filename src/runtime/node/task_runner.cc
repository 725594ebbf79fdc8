// File: runtime/node/task_runner.cc
#include "runtime/node/task_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/status.h"
#include "fmt/format.h"
#include "runtime/node/group_record.h"
#include "runtime/node/proc_usage.h"

namespace weft::runtime {
namespace {

std::string ErrnoText(std::string_view what) { return fmt::format("{}: {}", what, std::strerror(errno)); }

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

int OpenOutput(const std::filesystem::path& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

double RusageCpuSeconds(const rusage& ru) {
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

// What the forked child does before it becomes the task. Between fork and
// exec only async-signal-safe calls are allowed (the daemon has threads):
// raw syscalls, no allocation, no locks.
[[noreturn]] void BecomeTask(pid_t parent, int stdin_fd, int out_fd, int err_fd, const char* command,
                             TimeUs builtin_cpu_us) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before prctl took effect: then nobody would kill us.
  if (getppid() != parent) _exit(128 + SIGKILL);
  // Ignored signals stay ignored across exec (the daemon ignores SIGPIPE), and
  // the mask is inherited: give the task the defaults.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (command == nullptr) {
    // The built-in task: burn cpu until this process has used builtin_cpu_us,
    // holding none of the daemon's descriptors (sockets, files) meanwhile.
    close_range(0, ~0U, 0);
    for (;;) {
      timespec ts;
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      if (ts.tv_sec * kUsPerSecond + ts.tv_nsec / 1000 >= builtin_cpu_us) _exit(0);
      for (int i = 0; i < 20000; ++i) asm volatile("");  // work the optimizer cannot remove
    }
  }
  if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) {
    _exit(127);
  }
  // Every descriptor of the daemon (sockets, the journal) closes at exec.
  close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  const char* argv[] = {"/bin/sh", "-c", command, nullptr};
  execv("/bin/sh", const_cast<char* const*>(argv));
  _exit(127);
}

}  // namespace

TaskRunner::TaskRunner(std::filesystem::path work_dir) : work_dir_(std::move(work_dir)) {
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
}

TaskRunner::~TaskRunner() {
  KillAll();
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

std::filesystem::path TaskRunner::RecordPath(uint64_t id) const {
  return work_dir_ / "running" / std::to_string(id);
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
  for (const char* sub : {"tasks", "running"}) {
    std::filesystem::create_directories(work_dir_ / sub, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          fmt::format("cannot create {}: {}", (work_dir_ / sub).string(), ec.message()));
    }
  }
  dirs_ready_ = true;
  return absl::OkStatus();
}

void TaskRunner::AddDone(TaskExit exit) {
  done_.push_back(std::move(exit));
  if (!event_pending_) {
    const uint64_t one = 1;
    event_pending_ = write(event_fd_, &one, sizeof one) == sizeof one;
  }
}

absl::Status TaskRunner::Start(const TaskSpec& spec) {
  if (!init_status_.ok()) return init_status_;
  if (running_.contains(spec.id)) {
    return absl::AlreadyExistsError(fmt::format("task {} is already running", spec.id));
  }
  if (!spec.command && spec.builtin_duration_us <= 0) {
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
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    BecomeTask(parent, dev_null_fd_, out_fd, err_fd, spec.command ? spec.command->c_str() : nullptr,
               spec.builtin_duration_us);
  }
  close_outputs();
  if (pid < 0) {
    AddDone(TaskExit{.id = spec.id, .exit_code = 127, .failed_to_start = true, .error = ErrnoText("fork")});
    return absl::OkStatus();
  }
  // Also from this side, so the group exists before Start returns and a Kill
  // right away reaches it (fails harmlessly if the child already did it and exec'd).
  setpgid(pid, pid);
  auto kill_and_reap = [pid] {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  };
  auto abandon = [&](std::string error) {
    kill_and_reap();
    AddDone(TaskExit{.id = spec.id, .exit_code = 127, .failed_to_start = true, .error = std::move(error)});
  };
  const int pidfd = PidfdOpen(pid);
  if (pidfd < 0) {
    abandon(ErrnoText("pidfd_open"));
    return absl::OkStatus();
  }
  // The record comes before anything else can fail, so a crash from here on
  // leaves the group findable by KillLeftovers.
  const std::optional<ProcStat> stat = ReadProcStat(pid);
  const GroupRecord record{.pgid = pid, .start_ticks = stat ? stat->start_ticks : 0, .boot_id = boot_id_};
  if (absl::Status written = WriteGroupRecord(RecordPath(spec.id), record); !written.ok()) {
    close(pidfd);
    kill_and_reap();
    return written;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = pidfd;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pidfd, &ev) < 0) {
    const std::string error = ErrnoText("epoll_ctl");
    close(pidfd);
    std::filesystem::remove(RecordPath(spec.id));
    abandon(error);
    return absl::OkStatus();
  }
  running_.emplace(spec.id, Running{.pid = pid, .pidfd = pidfd, .last_sample_time = std::chrono::steady_clock::now()});
  id_of_pidfd_.emplace(pidfd, spec.id);
  return absl::OkStatus();
}

void TaskRunner::Kill(uint64_t id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  it->second.killed = true;
  // The leader is not reaped until Finish, so its pid (= the group id) is still ours.
  kill(-it->second.pid, SIGKILL);
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
  // unreaped zombie, so the group id still names this group.
  kill(-task.pid, SIGKILL);
  int status = 0;
  rusage ru{};
  pid_t got;
  do {
    got = wait4(task.pid, &status, 0, &ru);
  } while (got < 0 && errno == EINTR);
  TaskExit exit{.id = id, .killed = task.killed};
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
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, task.pidfd, nullptr);
  close(task.pidfd);
  id_of_pidfd_.erase(task.pidfd);
  std::error_code ec;
  std::filesystem::remove(RecordPath(id), ec);
  running_.erase(it);
  AddDone(std::move(exit));
}

std::vector<TaskExit> TaskRunner::Reap() {
  if (event_pending_) {
    uint64_t count = 0;
    if (read(event_fd_, &count, sizeof count) == sizeof count) event_pending_ = false;
  }
  constexpr int kBatch = 64;
  epoll_event events[kBatch];
  int n = 0;
  do {
    n = epoll_wait(epoll_fd_, events, kBatch, 0);
    for (int i = 0; i < n; ++i) {
      auto it = id_of_pidfd_.find(events[i].data.fd);
      if (it != id_of_pidfd_.end()) Finish(it->second);
    }
  } while (n == kBatch);
  // Finish signalled the eventfd for its own exits; they are returned now.
  if (event_pending_) {
    uint64_t count = 0;
    if (read(event_fd_, &count, sizeof count) == sizeof count) event_pending_ = false;
  }
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
    if (auto g = usage.find(task.pid); g != usage.end()) {
      // A member that exits unreaped by the group takes its cpu out of the
      // sum; never let the running total go backwards.
      const double cpu = std::max(task.last_cpu_seconds, g->second.cpu_seconds);
      const double dt = std::chrono::duration<double>(now - task.last_sample_time).count();
      u.cpu_cores = dt > 0 ? (cpu - task.last_cpu_seconds) / dt : 0;
      u.rss_bytes = g->second.rss_bytes;
      task.last_cpu_seconds = cpu;
      task.peak_rss_bytes = std::max(task.peak_rss_bytes, u.rss_bytes);
    }
    task.last_sample_time = now;
    out.push_back(u);
  }
  std::sort(out.begin(), out.end(), [](const TaskUsage& a, const TaskUsage& b) { return a.id < b.id; });
  return out;
}

void TaskRunner::KillLeftovers(const std::filesystem::path& work_dir) {
  KillRecordedGroups(work_dir / "running", /*wait_ms=*/2000);
}

}  // namespace weft::runtime
