// File: runtime/owned_files.cc
#include "runtime/owned_files.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fmt/format.h"

namespace weft::runtime {

namespace fs = std::filesystem;

namespace {

std::string UserName(uid_t uid) {
  const passwd* pw = getpwuid(uid);
  return pw != nullptr && pw->pw_name != nullptr ? std::string(pw->pw_name) : fmt::format("uid {}", uid);
}

// Why `st` is not trusted, or "" when it is.
std::string Distrust(const struct stat& st) {
  if (st.st_uid != geteuid()) {
    return fmt::format("is owned by {}, not by {}", UserName(st.st_uid), UserName(geteuid()));
  }
  // A link's own mode means nothing; what it points to is checked where it is used.
  if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return fmt::format("can be written by other users (mode {:o})", st.st_mode & 07777);
  }
  return "";
}

}  // namespace

absl::Status CheckOwned(const fs::path& path, std::string_view what) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return absl::InvalidArgumentError(fmt::format("cannot stat {} {}: {}", what, path.string(), std::strerror(errno)));
  }
  const std::string why = Distrust(st);
  if (why.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("{} {} {}: weft trusts only its own user's files there (choose another folder)", what,
                  path.string(), why));
}

bool IsOwned(const fs::path& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && Distrust(st).empty();
}

absl::Status CheckOwnedTree(const fs::path& dir, int depth, std::string_view what,
                            std::initializer_list<std::string_view> skip) {
  if (absl::Status s = CheckOwned(dir, what); !s.ok()) return s;
  if (depth <= 0 || fs::is_symlink(dir)) return absl::OkStatus();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    if (absl::Status s = CheckOwned(p, fmt::format("a file in {}", what)); !s.ok()) return s;
    const std::string name = p.filename().string();
    const bool skipped = std::find(skip.begin(), skip.end(), name) != skip.end();
    std::error_code type_ec;
    if (!skipped && entry.is_directory(type_ec) && !entry.is_symlink(type_ec)) {
      if (absl::Status s = CheckOwnedTree(p, depth - 1, what, skip); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOwnedNamed(const fs::path& dir, std::span<const std::string_view> names,
                             std::string_view what) {
  if (absl::Status s = CheckOwned(dir, what); !s.ok()) return s;
  std::error_code ec;
  for (std::string_view name : names) {
    const bool folder = name.ends_with('/');
    const fs::path p = dir / std::string(folder ? name.substr(0, name.size() - 1) : name);
    if (!fs::exists(fs::symlink_status(p, ec))) continue;
    if (absl::Status s = CheckOwned(p, fmt::format("a file in {}", what)); !s.ok()) return s;
    if (!folder || !fs::is_directory(fs::symlink_status(p, ec))) continue;
    for (const auto& entry : fs::directory_iterator(p, ec)) {
      if (absl::Status s = CheckOwned(entry.path(), fmt::format("a file in {}", what)); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status MakePrivateDir(const fs::path& dir, std::string_view what) {
  std::error_code ec;
  if (!dir.parent_path().empty()) fs::create_directories(dir.parent_path(), ec);
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(fmt::format("cannot create {} {}: {}", what, dir.string(), std::strerror(errno)));
  }
  if (absl::Status s = CheckOwned(dir, what); !s.ok()) return s;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (fs::is_symlink(st)) {
    // A link's target could be swapped under us: the folder itself is wanted.
    return absl::InvalidArgumentError(
        fmt::format("{} {} is a link: give the folder it points to", what, dir.string()));
  }
  if (!fs::is_directory(st)) {
    return absl::InvalidArgumentError(fmt::format("{} {} is not a directory", what, dir.string()));
  }
  return absl::OkStatus();
}

absl::Status WriteNoFollow(const fs::path& path, std::string_view text, mode_t mode) {
  const fs::path tmp = path.string() + fmt::format(".tmp{}", getpid());
  unlink(tmp.c_str());  // a leftover of this pid's crash (or a planted link: never followed)
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return absl::InvalidArgumentError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_errno = errno;
  close(fd);
  if (!written || rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = written ? errno : write_errno;
    unlink(tmp.c_str());
    return absl::InvalidArgumentError(fmt::format("cannot write {}: {}", path.string(), std::strerror(error)));
  }
  return absl::OkStatus();
}

fs::path StateHome() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return fs::path(state);
  const char* home = std::getenv("HOME");
  fs::path base;
  if (home != nullptr && home[0] == '/') {
    base = home;
  } else if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    base = pw->pw_dir;
  }
  return base / ".local" / "state";
}

}  // namespace weft::runtime
