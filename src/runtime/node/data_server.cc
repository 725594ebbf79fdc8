// File: runtime/node/data_server.cc
#include "runtime/node/data_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fmt/format.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

constexpr size_t kChunk = 1 << 20;

std::string PeerName(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
    return fmt::format("{}:{}", text, port);
  }
  const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
  inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
  return fmt::format("[{}]:{}", text, ntohs(v6.sin6_port));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DataServer>> DataServer::Start(const std::string& host) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (auto& v4 = reinterpret_cast<sockaddr_in&>(addr); inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    len = sizeof v4;
  } else if (auto& v6 = reinterpret_cast<sockaddr_in6&>(addr); inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    len = sizeof v6;
  } else {
    return absl::InvalidArgumentError(fmt::format("the data port's address \"{}\" is not a numeric IP address", host));
  }
  const int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(fmt::format("cannot make the data port's socket: {}", std::strerror(errno)));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int err = errno;
    close(fd);
    return absl::UnavailableError(fmt::format("cannot listen for data on {}: {}", host, std::strerror(err)));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError(fmt::format("cannot make the data port's pipe: {}", std::strerror(errno)));
  }
  auto server = std::unique_ptr<DataServer>(new DataServer(fd, wake[0], wake[1], PeerName(addr)));
  server->accept_thread_ = std::thread([s = server.get()] { s->Accept(); });
  return server;
}

DataServer::DataServer(int listener, int wake_read, int wake_write, std::string address)
    : listener_(listener), wake_read_(wake_read), wake_write_(wake_write), address_(std::move(address)) {}

DataServer::~DataServer() {
  stopping_ = true;
  const char stop = 1;
  [[maybe_unused]] const ssize_t n = write(wake_write_, &stop, 1);
  accept_thread_.join();
  {
    std::lock_guard lock(mu_);
    for (int fd : open_) shutdown(fd, SHUT_RDWR);  // their threads see it and end
  }
  // No new thread starts once the listener thread is gone.
  for (auto& [number, t] : threads_) t.join();
  close(listener_);
  close(wake_read_);
  close(wake_write_);
}

void DataServer::Allow(uint64_t transfer, const DataTicketBytes& ticket, uint64_t bytes,
                       std::chrono::milliseconds ttl) {
  tickets_.Allow(transfer, ticket, bytes, DataTickets::Clock::now() + ttl);
}

void DataServer::JoinFinished() {
  std::vector<std::thread> done;
  {
    std::lock_guard lock(mu_);
    for (uint64_t number : finished_) {
      auto it = threads_.find(number);
      done.push_back(std::move(it->second));
      threads_.erase(it);
    }
    finished_.clear();
  }
  for (std::thread& t : done) t.join();
}

void DataServer::Accept() {
  while (!stopping_) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, 1000) < 0 && errno != EINTR) return;
    JoinFinished();
    if ((fds[0].revents & POLLIN) == 0 || stopping_) continue;
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = accept4(listener_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(mu_);
    if (open_.size() >= kMaxConnections) {
      ++refused_;
      spdlog::warn("data port: {} refused: {} transfers already served", PeerName(peer), kMaxConnections);
      close(fd);
      continue;
    }
    open_.insert(fd);
    const uint64_t number = next_thread_++;
    threads_[number] = std::thread([this, number, fd, name = PeerName(peer)] { Serve(number, fd, name); });
  }
}

// ReadRequest reads the whole request within kRequestTimeout.
bool DataServer::ReadRequest(int fd, DataRequestWire& wire) {
  const auto deadline = std::chrono::steady_clock::now() + kRequestTimeout;
  size_t got = 0;
  while (got < wire.size()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    const ssize_t n = read(fd, wire.data() + got, wire.size() - got);
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

void DataServer::Serve(uint64_t number, int fd, std::string peer) {
  DataRequestWire wire{};
  std::optional<DataRequest> request;
  DataTickets::Verdict verdict = DataTickets::Verdict::kUnknown;
  if (ReadRequest(fd, wire) && (request = DecodeDataRequest(wire))) {
    const auto now = DataTickets::Clock::now();
    verdict = tickets_.Take(*request, now, now + kTicketWait);
  }
  if (!request || verdict != DataTickets::Verdict::kServe) {
    ++refused_;
    if (!request) {
      spdlog::warn("data port: a bad request from {} closed", peer);
    } else {
      spdlog::warn("data port: transfer {} from {} refused: {}", request->transfer, peer, VerdictName(verdict));
    }
  } else {
    // A reader that takes nothing for this long is gone.
    const timeval stall{.tv_sec = kStallTimeout.count(), .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stall, sizeof stall);
    static const std::vector<char> zeros(kChunk, 0);
    uint64_t sent = 0;
    while (sent < request->bytes && !stopping_) {
      const ssize_t n = send(fd, zeros.data(), std::min<uint64_t>(kChunk, request->bytes - sent), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<uint64_t>(n);
      bytes_served_ += static_cast<uint64_t>(n);
    }
    spdlog::info("data port: transfer {} to {}: served {} of {} bytes{}", request->transfer, peer, sent,
                 request->bytes, sent < request->bytes ? " (cut short)" : "");
  }
  std::lock_guard lock(mu_);
  open_.erase(fd);
  close(fd);
  finished_.push_back(number);
}

}  // namespace weft::runtime
