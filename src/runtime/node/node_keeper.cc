// File: runtime/node/node_keeper.cc
#include "runtime/node/node_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/node/group_record.h"
#include "runtime/node/proc_usage.h"
#include "runtime/node/task_runner.h"

namespace weft::runtime {
namespace {

constexpr int kStoppedPolls = 2;  // a stop this long is not a scheduling hiccup

// StateOf reads the state letter (proc(5) field 3) from an open
// /proc/PID/stat; '?' when unreadable.
char StateOf(int stat_fd) {
  char buf[512];
  const ssize_t n = pread(stat_fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return '?';
  buf[n] = '\0';
  const char* close_paren = std::strrchr(buf, ')');
  return close_paren != nullptr && close_paren[1] == ' ' ? close_paren[2] : '?';
}

// Freezer: how the keeper stops and resumes the node's tasks: the node
// cgroup's freezer file (open at fd 1), or without one the process groups
// recorded in work_dir/running/, each checked to be still the recorded one.
class Freezer {
 public:
  Freezer(std::filesystem::path running_dir, const TaskCgroups::FreezeControl& control)
      : running_dir_(std::move(running_dir)),
        freeze_(control.freeze),
        thaw_(control.thaw),
        has_cgroup_(!control.file.empty()),
        boot_id_(BootId()) {}

  // Freeze holds the tasks frozen; called at every poll while the lease is
  // out, so that a task started meanwhile is held too.
  void Freeze() {
    if (has_cgroup_) {
      [[maybe_unused]] ssize_t n = pwrite(1, freeze_.data(), freeze_.size(), 0);
      return;
    }
    for (const GroupRecord& r : ReadGroupRecords(running_dir_)) {
      if (!IsSameGroup(r, boot_id_) || kill(-r.pgid, SIGSTOP) != 0) continue;
      bool known = false;
      for (const GroupRecord& s : stopped_) known |= s.pgid == r.pgid && s.start_ticks == r.start_ticks;
      if (!known) stopped_.push_back(r);
    }
  }

  void Thaw() {
    if (has_cgroup_) {
      [[maybe_unused]] ssize_t n = pwrite(1, thaw_.data(), thaw_.size(), 0);
      return;
    }
    for (const GroupRecord& r : stopped_) {
      if (IsSameGroup(r, boot_id_)) kill(-r.pgid, SIGCONT);
    }
    stopped_.clear();
  }

 private:
  std::filesystem::path running_dir_;
  std::string freeze_;
  std::string thaw_;
  bool has_cgroup_;
  std::string boot_id_;
  std::vector<GroupRecord> stopped_;  // the groups SIGSTOPped since the last thaw
};

// KeeperMain is the keeper's whole life (fds: 0 the daemon's pidfd, 1 the
// node group's freezer file or /dev/null, 2 the daemon's /proc stat).
[[noreturn]] void KeeperMain(const std::filesystem::path& work_dir,
                             const std::vector<std::filesystem::path>& node_dirs,
                             const TaskCgroups::FreezeControl& control, std::atomic<int64_t>* lease_until_ns,
                             std::atomic<int>* frozen) {
  prctl(PR_SET_NAME, "weftd-keeper");
  // Its own session: nothing sent to the daemon's process group or terminal
  // (a stop, Ctrl-C) reaches it. It goes when the daemon goes.
  setsid();
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  Freezer freezer(work_dir / "running", control);
  int stopped_polls = 0;
  for (;;) {
    pollfd p{.fd = 0, .events = POLLIN, .revents = 0};
    const int ready = poll(&p, 1, NodeKeeper::kPollMs);
    if (ready > 0 && (p.revents & POLLIN) != 0) {
      // The node's groups are known here, so they go even if the work dir
      // (and its record of them) went with the daemon. A frozen group is
      // killed through its freezer (task_cgroups.h), a stopped process
      // dies of SIGKILL: nothing frozen runs on.
      TaskCgroups::KillAndRemove(node_dirs, /*wait_ms=*/2000);
      TaskRunner::KillLeftovers(work_dir);
      _exit(0);
    }
    const char state = StateOf(2);
    stopped_polls = state == 'T' || state == 't' ? stopped_polls + 1 : 0;
    if (stopped_polls >= kStoppedPolls || NodeKeeper::BootTimeNs() >= lease_until_ns->load()) {
      freezer.Freeze();
      frozen->store(1);
    } else if (frozen->load() != 0) {
      freezer.Thaw();
      frozen->store(0);
    }
  }
}

}  // namespace

int64_t NodeKeeper::BootTimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::unique_ptr<NodeKeeper> NodeKeeper::Start(const std::filesystem::path& work_dir, const TaskCgroups& cgroups) {
  const pid_t daemon = getpid();
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, daemon, 0));
  const TaskCgroups::FreezeControl control = cgroups.NodeFreezeControl();
  const int freeze_fd = open(control.file.empty() ? "/dev/null" : control.file.c_str(), O_WRONLY | O_CLOEXEC);
  const int stat_fd = open(("/proc/" + std::to_string(daemon) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  auto close_all = [&] {
    for (int fd : {pidfd, freeze_fd, stat_fd}) {
      if (fd >= 0) close(fd);
    }
  };
  if (pidfd < 0 || freeze_fd < 0 || stat_fd < 0 || page == MAP_FAILED) {
    close_all();
    if (page != MAP_FAILED) munmap(page, sizeof(Shared));
    return nullptr;
  }
  auto* shared = new (page) Shared{};
  const std::vector<std::filesystem::path> node_dirs = cgroups.NodeDirs();
  // Forked twice, so the keeper is not the daemon's child: nothing that
  // looks at the daemon's children (its tasks) sees it.
  const pid_t middle = fork();
  if (middle == 0) {
    if (fork() != 0) _exit(0);
    shared->keeper.store(getpid());
    // Only its own three descriptors, at 0, 1 and 2 (dup2 clears
    // close-on-exec, harmless: it never execs).
    const int fds[3] = {pidfd, freeze_fd, stat_fd};
    int moved[3];
    for (int i = 0; i < 3; ++i) moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
    for (int i = 0; i < 3; ++i) dup2(moved[i], i);
    close_range(3, ~0U, 0);
    KeeperMain(work_dir, node_dirs, control, &shared->lease_until_ns, &shared->frozen);
  }
  close_all();
  if (middle > 0) {
    while (waitpid(middle, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  // The keeper says its pid as it starts (up to 1 s).
  for (int i = 0; i < 1000 && middle > 0 && shared->keeper.load() == 0; ++i) usleep(1000);
  const pid_t keeper = shared->keeper.load();
  if (keeper <= 0) {
    munmap(page, sizeof(Shared));
    return nullptr;
  }
  return std::unique_ptr<NodeKeeper>(new NodeKeeper(keeper, shared));
}

NodeKeeper::~NodeKeeper() {
  // Not our child: signalled through a pidfd, so a reused pid is never hit.
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd >= 0) {
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    close(pidfd);
  }
  munmap(shared_, sizeof(Shared));
}

}  // namespace weft::runtime
