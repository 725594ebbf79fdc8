// File: runtime/unix_listener.h
//
// The scheduler's Unix domain socket (issue 34, finding 2): `weftd scheduler
// --listen unix:PATH` serves gRPC on a socket file, which only who can
// reach its folder can connect to and only its owner can bind, so a local
// cluster's clients and nodes never send the token to a stranger that
// took a freed TCP port. A lock file next to the socket (PATH.lock, held
// with flock while the daemon lives) tells a live scheduler from a dead
// one's stale socket: a restart with the same command line replaces the
// stale socket and comes back at the same address, and a second daemon
// never steals the socket of a live one (gRPC itself would unlink it).
// Not thread-safe; the lock goes with the object (or the process).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace weft::runtime {

class UnixListener {
 public:
  // Claim: for a unix:PATH address, the socket's folder must be the user's
  // own and not writable by others, the path short enough for a socket
  // (107 bytes), no live daemon may hold its lock, and what is at PATH must
  // be a socket (a stale one is removed). Any other address: an inactive
  // listener (nothing to do). InvalidArgument with one line otherwise.
  static absl::StatusOr<UnixListener> Claim(std::string_view address);

  UnixListener() = default;
  UnixListener(UnixListener&& other) noexcept;
  UnixListener& operator=(UnixListener&& other) noexcept;
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;
  ~UnixListener();

  bool active() const { return lock_fd_ >= 0; }
  // address: unix:ABSOLUTE_PATH, what gRPC binds and clients dial.
  const std::string& address() const { return address_; }

 private:
  int lock_fd_ = -1;
  std::string address_;
};

}  // namespace weft::runtime
