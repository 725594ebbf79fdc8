// File: runtime/node/data_address.cc
#include "runtime/node/data_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

namespace weft::runtime {
namespace {

constexpr const char* kLoopback = "127.0.0.1";

// SplitHostPort: "host:port" or "[host]:port"; false without a port.
bool SplitHostPort(const std::string& text, std::string& host, std::string& port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 == text.size()) return false;
  host = text.substr(0, colon);
  port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return !host.empty();
}

}  // namespace

std::string DataHostReaching(const std::string& scheduler) {
  std::string host, port;
  if (scheduler.starts_with("unix:") || !SplitHostPort(scheduler, host, port)) return kLoopback;
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) return kLoopback;
  // A connected UDP socket sends nothing, but the kernel picks its route,
  // and with it the local address that reaches the scheduler.
  std::string local = kLoopback;
  const int fd = socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_storage me{};
  socklen_t len = sizeof me;
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0) {
    char text[INET6_ADDRSTRLEN] = "";
    const void* raw = me.ss_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<sockaddr_in&>(me).sin_addr)
                                              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6&>(me).sin6_addr);
    if (inet_ntop(me.ss_family, raw, text, sizeof text) != nullptr) local = text;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return local;
}

bool IsNumericHost(const std::string& host) {
  in6_addr any;
  return inet_pton(AF_INET, host.c_str(), &any) == 1 || inet_pton(AF_INET6, host.c_str(), &any) == 1;
}

bool ParseDataAddress(const std::string& text, sockaddr_storage& address, socklen_t& len) {
  std::string host, port_text;
  if (!SplitHostPort(text, host, port_text)) return false;
  uint16_t port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0) return false;
  address = {};
  if (auto& v4 = reinterpret_cast<sockaddr_in&>(address); inet_pton(AF_INET, host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    len = sizeof v4;
    return true;
  }
  if (auto& v6 = reinterpret_cast<sockaddr_in6&>(address); inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    len = sizeof v6;
    return true;
  }
  return false;
}

}  // namespace weft::runtime
