// File: runtime/scheduler/dashboard_server.h
//
// DashboardServer: the HTTP side of `weftd scheduler --http ADDR`, on
// cpp-httplib (Debian's libcpp-httplib-dev): GET /metrics (the Prometheus
// text format), GET / (the live dashboard page), GET /login and GET /api/jobs and
// /api/nodes (the JSON the page polls), from handlers the daemon gives it.
// The same rule as the gRPC port (runtime/auth.h, runtime/tls.h): loopback
// may go without a token, any other address needs one, which a request carries as
// `Authorization: Bearer TOKEN` (a scraper) or, from a browser, as the
// cookie that GET /login?token=TOKEN sets before it redirects to / (or as
// `?token=TOKEN` on any request).
// With TLS (runtime/tls.h: the scheduler's, or a certificate of the
// dashboard's own, weftd's --http-tls-cert) it serves HTTPS, and with a CA it asks browsers and scrapers for a client
// certificate that CA signed, as the gRPC port does.
// The page's tables update themselves from the JSON; the whole page reloads
// every `?refresh=N` seconds (default 0: never).
// Serves on threads of its own; the handlers must be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "runtime/tls.h"

namespace httplib {
class Server;
}

namespace weft::runtime {

class DashboardServer {
 public:
  struct Handlers {
    std::function<std::string()> metrics;  // the /metrics body
    std::function<std::string(int refresh_seconds)> page;  // the / page (HTML)
    std::function<std::string()> jobs_json;  // /api/jobs
    std::function<std::string()> nodes_json;  // /api/nodes
  };
  static constexpr int kDefaultRefreshSeconds = 0;

  // Start binds `address` (HOST:PORT, port 0 for any free one) and serves
  // until destroyed, over HTTPS when `tls` is enabled. InvalidArgument for a
  // malformed address or a non-loopback one without a token; Unavailable
  // when it cannot bind or TLS cannot be set up.
  static absl::StatusOr<std::unique_ptr<DashboardServer>> Start(const std::string& address, std::string token,
                                                                Handlers handlers, const TlsConfig& tls = {});
  ~DashboardServer();

  // address: HOST:PORT actually bound (the port chosen when 0 was asked).
  const std::string& address() const { return address_; }

 private:
  DashboardServer() = default;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::string address_;
};

}  // namespace weft::runtime
