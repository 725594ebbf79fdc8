// File: runtime/unix_listener.cc
#include "runtime/unix_listener.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "fmt/format.h"
#include "runtime/auth.h"
#include "runtime/owned_files.h"

namespace weft::runtime {

namespace fs = std::filesystem;

absl::StatusOr<UnixListener> UnixListener::Claim(std::string_view address) {
  UnixListener out;
  if (!IsUnixAddress(address)) return out;
  const std::string given(address.substr(5));
  if (given.empty()) return absl::InvalidArgumentError(fmt::format("{}: no path after unix:", address));
  std::error_code ec;
  const fs::path path = fs::absolute(given, ec).lexically_normal();
  constexpr size_t kMaxPath = sizeof(sockaddr_un{}.sun_path) - 1;
  if (ec || path.native().size() > kMaxPath) {
    return absl::InvalidArgumentError(fmt::format(
        "the socket path {} is {} bytes, over the {} a Unix socket allows: choose a shorter folder", path.string(),
        path.native().size(), kMaxPath));
  }
  if (path.native().find(',') != std::string::npos) {
    return absl::InvalidArgumentError(fmt::format("the socket path {} has a ',' (it separates addresses)", path.string()));
  }
  // Who can write the folder could bind the path before us, or swap it.
  if (absl::Status s = CheckOwned(path.parent_path(), "the socket's folder"); !s.ok()) return s;
  const fs::path lock = path.string() + ".lock";
  out.lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out.lock_fd_ < 0) {
    return absl::InvalidArgumentError(fmt::format("cannot open {}: {}", lock.string(), std::strerror(errno)));
  }
  if (flock(out.lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "a live scheduler already listens on unix:{} (it holds {}): stop it first", path.string(), lock.string()));
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return absl::InvalidArgumentError(fmt::format("{} exists and is not a socket: will not replace it", path.string()));
    }
    unlink(path.c_str());  // a dead scheduler's: nobody holds its lock
  }
  out.address_ = "unix:" + path.string();
  return out;
}

UnixListener::UnixListener(UnixListener&& other) noexcept
    : lock_fd_(std::exchange(other.lock_fd_, -1)), address_(std::move(other.address_)) {}

UnixListener& UnixListener::operator=(UnixListener&& other) noexcept {
  if (this != &other) {
    if (lock_fd_ >= 0) close(lock_fd_);
    lock_fd_ = std::exchange(other.lock_fd_, -1);
    address_ = std::move(other.address_);
  }
  return *this;
}

UnixListener::~UnixListener() {
  if (lock_fd_ >= 0) close(lock_fd_);
}

}  // namespace weft::runtime
