// File: runtime/node/node_keeper.cc
#include "runtime/node/node_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/node/task_runner.h"

namespace weft::runtime {
namespace {

constexpr int kPollMs = 100;
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

// KeeperMain is the keeper's whole life (fds: 0 the daemon's pidfd, 1 its
// /proc stat, 2 the node group's freezer file or /dev/null).
[[noreturn]] void KeeperMain(const std::filesystem::path& work_dir,
                             const std::vector<std::filesystem::path>& node_dirs, const std::string& freeze,
                             bool can_freeze, std::atomic<int>* flag) {
  prctl(PR_SET_NAME, "weftd-keeper");
  // A Ctrl-C at a terminal reaches the whole foreground group: the daemon
  // cleans up by itself then, and the keeper must not go before it.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  int stopped = 0;
  for (;;) {
    pollfd p{.fd = 0, .events = POLLIN, .revents = 0};
    const int ready = poll(&p, 1, kPollMs);
    if (ready > 0 && (p.revents & POLLIN) != 0) {
      // The node's groups are known here, so they go even if the work dir
      // (and its record of them) went with the daemon.
      TaskCgroups::KillAndRemove(node_dirs, /*wait_ms=*/2000);
      TaskRunner::KillLeftovers(work_dir);
      _exit(0);
    }
    const char state = StateOf(1);
    if (state != 'T' && state != 't') {
      stopped = 0;
      continue;
    }
    if (++stopped >= kStoppedPolls && can_freeze && flag->load() == 0) {
      if (write(2, freeze.data(), freeze.size()) == static_cast<ssize_t>(freeze.size())) flag->store(1);
    }
  }
}

}  // namespace

std::unique_ptr<NodeKeeper> NodeKeeper::Start(const std::filesystem::path& work_dir, const TaskCgroups& cgroups) {
  const pid_t daemon = getpid();
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, daemon, 0));
  const int stat_fd = open(("/proc/" + std::to_string(daemon) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  const TaskCgroups::FreezeControl control = cgroups.NodeFreezeControl();
  const bool can_freeze = !control.file.empty();
  const int freeze_fd = open(can_freeze ? control.file.c_str() : "/dev/null", O_WRONLY | O_CLOEXEC);
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  auto close_all = [&] {
    for (int fd : {pidfd, stat_fd, freeze_fd}) {
      if (fd >= 0) close(fd);
    }
  };
  if (pidfd < 0 || stat_fd < 0 || freeze_fd < 0 || page == MAP_FAILED) {
    close_all();
    if (page != MAP_FAILED) munmap(page, sizeof(Shared));
    return nullptr;
  }
  auto* shared = new (page) Shared{};
  // Forked twice, so the keeper is not the daemon's child: nothing that
  // looks at the daemon's children (its tasks) sees it.
  const pid_t middle = fork();
  if (middle == 0) {
    if (fork() != 0) _exit(0);
    shared->keeper.store(getpid());
    // Only its own three descriptors, at 0, 1 and 2 (dup2 clears close-on-exec, harmless: it never execs).
    const int fds[3] = {pidfd, stat_fd, freeze_fd};
    int moved[3];
    for (int i = 0; i < 3; ++i) moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
    for (int i = 0; i < 3; ++i) dup2(moved[i], i);
    close_range(3, ~0U, 0);
    KeeperMain(work_dir, cgroups.NodeDirs(), control.freeze, can_freeze, &shared->frozen);
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

bool NodeKeeper::TakeFrozen() { return shared_->frozen.exchange(0) != 0; }

}  // namespace weft::runtime
