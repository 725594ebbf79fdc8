#include "runtime/scheduler/dashboard_server.h"

#include <sys/socket.h>

#include <chrono>

#include "fmt/format.h"
#include "httplib.h"
#include "runtime/auth.h"

namespace weft::runtime {
namespace {

constexpr std::string_view kCookie = "weft_dashboard";

// CookieToken: the value of the dashboard's cookie in the request's Cookie
// header ("a=1; weft_dashboard=T"), empty when there is none.
std::string CookieToken(const httplib::Request& request) {
  const std::string header = request.get_header_value("Cookie");
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string_view pair(header.data() + at, end - at);
    while (pair.starts_with(' ')) pair.remove_prefix(1);
    if (pair.starts_with(kCookie) && pair.size() > kCookie.size() && pair[kCookie.size()] == '=') {
      return std::string(pair.substr(kCookie.size() + 1));
    }
    at = end + 1;
  }
  return "";
}

// Authorized: the request carries `token` (always, when it is empty): as a
// bearer header (a scraper), the dashboard's cookie (a browser after
// /login), or ?token= (a browser given the link itself).
bool Authorized(const httplib::Request& request, const std::string& token) {
  if (token.empty()) return true;
  const std::string header = request.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.starts_with(kBearer) && ConstantTimeEquals(std::string_view(header).substr(kBearer.size()), token)) {
    return true;
  }
  if (const std::string cookie = CookieToken(request); !cookie.empty() && ConstantTimeEquals(cookie, token)) {
    return true;
  }
  return request.has_param("token") && ConstantTimeEquals(request.get_param_value("token"), token);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DashboardServer>> DashboardServer::Start(const std::string& address, std::string token,
                                                                        Handlers handlers, const TlsConfig& tls) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon != std::string::npos) {
    try {
      size_t used = 0;
      port = std::stoi(address.substr(colon + 1), &used);
      if (used != address.size() - colon - 1) port = -1;
    } catch (const std::exception&) {
      port = -1;
    }
  }
  if (colon == std::string::npos || colon == 0 || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(fmt::format("--http {}: expected HOST:PORT", address));
  }
  if (absl::Status s = CheckListen(address, !token.empty()); !s.ok()) return s;
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);

  std::unique_ptr<DashboardServer> d(new DashboardServer());
  if (tls.enabled()) {
    auto ssl = std::make_unique<httplib::SSLServer>(tls.files.cert.c_str(), tls.files.key.c_str(),
                                                    tls.mutual() ? tls.files.ca.c_str() : nullptr);
    if (!ssl->is_valid()) return absl::UnavailableError(fmt::format("--http {}: cannot set up HTTPS", address));
    d->server_ = std::move(ssl);
  } else {
    d->server_ = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *d->server_;
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a
  // second daemon could bind the same port and steal half the requests.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  server.set_pre_routing_handler([token](const httplib::Request& request, httplib::Response& response) {
    if (Authorized(request, token)) return httplib::Server::HandlerResponse::Unhandled;
    response.status = 401;
    response.set_content("unauthorized: give the scheduler's token\n", "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  // /login?token=T (what `weft cluster up` prints): the token becomes a
  // cookie that scripts cannot read (HttpOnly), that goes only over HTTPS
  // when the dashboard has it (Secure) and never with a request another site
  // starts (SameSite=Strict), and the browser goes on to / with no token in
  // its address bar, history or the page's requests.
  server.Get("/login", [token, secure = tls.enabled()](const httplib::Request&, httplib::Response& response) {
    response.set_header("Set-Cookie", fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict{}", kCookie, token,
                                                  secure ? "; Secure" : ""));
    response.set_header("Cache-Control", "no-store");
    response.set_redirect("/", 303);
  });
  server.Get("/metrics", [metrics = handlers.metrics](const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  const auto json = [](std::function<std::string()> body) {
    return [body = std::move(body)](const httplib::Request&, httplib::Response& response) {
      response.set_header("Cache-Control", "no-store");
      response.set_content(body ? body() : "{}", "application/json");
    };
  };
  server.Get("/api/jobs", json(handlers.jobs_json));
  server.Get("/api/nodes", json(handlers.nodes_json));
  server.Get("/", [page = handlers.page](const httplib::Request& request, httplib::Response& response) {
    int refresh = kDefaultRefreshSeconds;
    if (request.has_param("refresh")) {
      const std::string text = request.get_param_value("refresh");
      if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos) {
        response.status = 400;
        response.set_content("refresh: a number of seconds, 0 for none\n", "text/plain");
        return;
      }
      refresh = std::stoi(text);
    }
    response.set_content(page(refresh), "text/html; charset=utf-8");
  });
  const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) return absl::UnavailableError(fmt::format("--http {}: cannot listen there", address));
  d->address_ = fmt::format("{}:{}", address.substr(0, colon), bound);
  d->thread_ = std::thread([&server] { server.listen_after_bind(); });
  // Until it listens, stop() would not reach it (and the destructor's join
  // would wait forever): wait for that, briefly.
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!server.is_running()) return absl::UnavailableError(fmt::format("--http {}: the server did not start", address));
  return d;
}

DashboardServer::~DashboardServer() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace weft::runtime
