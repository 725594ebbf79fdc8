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
#include "runtime/node/stderr_tail.h"

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

}  // namespace

TaskRunner::TaskRunner(std::filesystem::path work_dir, std::string_view cgroup_name)
    : work_dir_(std::move(work_dir)) {
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
  constexpr size_t kMaxName = 128;
  std::string name(label.substr(0, kMaxName));
  if (label.size() > kMaxName) {
    // Cut, the label's end (its -TASK-ATTEMPT) would be lost and two tasks
    // would share a file (issue 34, finding 6): a hash of the whole label
    // (FNV-1a, 64 bits) replaces what does not fit.
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : label) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    const std::string tail = fmt::format("-{:016x}", hash);
    name = std::string(label.substr(0, kMaxName - tail.size())) + tail;
  }
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
  std::optional<TaskEnvironment> env;
  if (spec.command) env.emplace(spawner_.base_env(), spec.env);
  const bool disk = !spec.command && (spec.builtin_work == BuiltinWork::kDisk ||
                                      (spec.builtin_work == BuiltinWork::kProfile && spec.builtin_profile.disk_mbps > 0));
  std::string scratch = disk ? (work_dir_ / "scratch" / (SafeFileName(spec.label, spec.id) + ".tmp")).string() : "";
  ChildSetup setup{.parent = getpid(),
                   .stdin_fd = dev_null_fd_,
                   .out_fd = out_fd,
                   .err_fd = err_fd,
                   .command = spec.command ? spec.command->c_str() : nullptr,
                   .envp = env ? env->envp() : nullptr,
                   .builtin = {.work = spec.command ? BuiltinWork::kCpu : spec.builtin_work,
                               .duration_us = spec.builtin_duration_us,
                               .bytes = static_cast<uint64_t>(std::max(0.0, spec.builtin_mb) * 1e6),
                               .pull = spec.builtin_pull,
                               .profile = spec.builtin_profile,
                               .scratch = disk ? scratch.c_str() : nullptr},
                   .cwd = work_dir_.c_str()};
  const Placement placement = Place(spec);
  setup.cgroup_fds = placement.fds.data();
  setup.cgroup_fd_count = placement.fds.size();
  // The run's clock starts before the child does: a built-in paces itself
  // from its own start, so a start taken after the bookkeeping below would
  // make run_us shorter than the work it timed.
  const auto started = std::chrono::steady_clock::now();
  const Spawned child = spawner_.Spawn(setup);
  if (out_fd != dev_null_fd_) close(out_fd);
  if (err_fd != dev_null_fd_) close(err_fd);
  for (int fd : placement.fds) close(fd);
  if (child.pid < 0) {
    if (!placement.cgroup.empty()) cgroups_.Remove(placement.cgroup);
    LeaveContainer(placement.container);
    AddDone(TaskExit{.id = spec.id, .exit_code = 127, .failed_to_start = true, .error = child.error});
    return absl::OkStatus();
  }
  // A command task's child has made its group and exec'd by now (CLONE_VFORK);
  // a built-in task's may not have run yet, so its group is also made from
  // this side, so that a Kill right away reaches it.
  if (!spec.command) setpgid(child.pid, child.pid);
  RETURN_IF_ERROR(Track(spec.id, child, started, std::move(scratch), placement));
  if (spec.command) running_.at(spec.id).stderr_path = StderrPath(spec);
  return absl::OkStatus();
}

TaskRunner::Placement TaskRunner::Place(const TaskSpec& spec) {
  Placement placement;
  const bool in_container = cgroups_.enabled() && !spec.container.empty();
  if (in_container && container_tasks_[spec.container]++ == 0) {
    for (int fd : cgroups_.Create(spec.container)) close(fd);
    cgroups_.SetLimits(spec.container, spec.container_cores, spec.container_mem_bytes);
  }
  const std::string cgroup = in_container ? fmt::format("{}/t{}", spec.container, spec.id) : fmt::format("t{}", spec.id);
  if (cgroups_.enabled()) placement.fds = cgroups_.Create(cgroup);
  // The task's own limits (its reservation), set before it joins its group.
  // A task in a container is bounded by the container's group instead.
  if (!in_container) {
    last_limits_.cpu_asked = spec.limit_cores >= 0;
    last_limits_.mem_asked = spec.limit_mem_bytes >= 0;
    if (!placement.fds.empty() && (last_limits_.cpu_asked || last_limits_.mem_asked)) {
      last_limits_.set = cgroups_.SetLimits(cgroup, spec.limit_cores, spec.limit_mem_bytes);
    }
  }
  if (!placement.fds.empty()) placement.cgroup = cgroup;
  if (in_container) placement.container = spec.container;
  return placement;
}

absl::Status TaskRunner::Track(uint64_t id, const Spawned& child, std::chrono::steady_clock::time_point started,
                               std::string scratch, const Placement& placement) {
  const pid_t pid = child.pid;
  const int pidfd = child.pidfd;
  auto kill_and_reap = [this, pid, pidfd, &placement] {
    kill(-pid, SIGKILL);
    if (!placement.cgroup.empty()) {
      cgroups_.Kill(placement.cgroup);
      cgroups_to_remove_.push_back(placement.cgroup);
    }
    LeaveContainer(placement.container);
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
    AddDone(TaskExit{.id = id, .exit_code = 127, .failed_to_start = true, .error = std::move(error)});
    return absl::OkStatus();
  }
  running_.emplace(id, Running{.pid = pid, .pidfd = pidfd, .record_slot = *slot, .started = started,
                               .last_sample_time = started, .scratch = std::move(scratch),
                               .cgroup = placement.cgroup, .container = placement.container,
                               .mem_limited = last_limits_.set.mem});
  id_of_pidfd_.emplace(pidfd, id);
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

void TaskRunner::KillAll(const std::function<void()>& after_signals) {
  std::vector<uint64_t> ids;
  ids.reserve(running_.size());
  for (const auto& [id, task] : running_) ids.push_back(id);
  for (uint64_t id : ids) Kill(id);
  if (after_signals) after_signals();
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
    exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
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
  if (exit.exit_code != 0 && !task.killed && !task.stderr_path.empty()) exit.stderr_tail = StderrTail(task.stderr_path);
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
