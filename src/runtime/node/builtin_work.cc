// File: runtime/node/builtin_work.cc
#include "runtime/node/builtin_work.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace weft::runtime {
namespace {

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

// PullWork reads pull.bytes from a node's data port: connects to it, sends
// the request made before the clone, and reads until all have come; paced
// at per_us bytes per microsecond from start_us when per_us > 0 (TCP's
// flow control then slows the sender to the reader's pace). The server
// closing early (no valid ticket, its node gone) fails it. 0 on success.
int PullWork(const DataPull& pull, double per_us = 0, int64_t start_us = 0) {
  const uint64_t bytes = pull.bytes;
  char* buf = MapBuffer();
  if (buf == nullptr) return 1;
  const int fd = socket(pull.address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 3;
  // A server that sends nothing for this long is gone.
  const timeval stall{.tv_sec = 30, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &stall, sizeof stall);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&pull.address), pull.address_len) != 0) return 4;
  for (size_t sent = 0; sent < pull.request.size();) {
    const ssize_t n = send(fd, pull.request.data() + sent, pull.request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return 7;
    sent += static_cast<size_t>(n);
  }
  uint64_t received = 0;
  while (received < bytes) {
    if (Ahead(received, per_us, start_us)) {
      NapUs(1000);
      continue;
    }
    const ssize_t n = read(fd, buf, std::min<uint64_t>(kIoChunk, bytes - received));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 8;
    received += static_cast<uint64_t>(n);
  }
  close(fd);
  return 0;
}

// NetOf: a net phase's (or a profiled phase's net part's) work: pulled from
// a data port when the job has one (the bytes its ticket says, which the
// scheduler computed from the same work), else to itself over loopback.
int NetOf(const BuiltinJob& job, uint64_t bytes, double per_us = 0, int64_t start_us = 0) {
  if (job.pull.address_len > 0) return PullWork(job.pull, per_us, start_us);
  return NetWork(bytes, per_us, start_us);
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
int ProfiledWork(const BuiltinJob& job) {
  const BuiltinProfile& p = job.profile;
  const int64_t duration_us = job.duration_us;
  const char* scratch = job.scratch;
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
    if (StartWorker([&] { return NetOf(job, bytes(p.net_mbps), p.net_mbps, start_us); }) < 0) return 20;
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

// CpuWork burns this process's cpu until it has used `cpu_us`.
int CpuWork(TimeUs cpu_us) {
  for (;;) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (ts.tv_sec * kUsPerSecond + ts.tv_nsec / 1000 >= cpu_us) return 0;
    for (int i = 0; i < 20000; ++i) asm volatile("");  // work the optimizer cannot remove
  }
}

}  // namespace

int RunBuiltin(const BuiltinJob& job) {
  switch (job.work) {
    case BuiltinWork::kDisk: return DiskWork(job.scratch, job.bytes);
    case BuiltinWork::kNet: return NetOf(job, job.bytes);
    case BuiltinWork::kProfile: return ProfiledWork(job);
    case BuiltinWork::kCpu: break;
  }
  return CpuWork(job.duration_us);
}

}  // namespace weft::runtime
