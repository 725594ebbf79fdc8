// The scheduler's HTTP side alone: SchedulerMetrics renders what it was told
// in the Prometheus text format, and DashboardServer serves it with the
// token rule of the gRPC port (runtime/auth.h).
#include "runtime/scheduler/dashboard_server.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "fmt/format.h"
#include "httplib.h"
#include "runtime/scheduler/scheduler_metrics.h"

namespace weft::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SchedulerMetricsTest, RendersEventsAndSnapshotAsPrometheusText) {
  SchedulerMetrics m;
  m.AttemptLaunched();
  m.AttemptLaunched();
  m.AttemptKilled();
  m.AttemptEnded(Outcome::kOk);
  m.AttemptEnded(Outcome::kFailed);
  m.JournalCommit(0.0003);
  m.RpcDone("Submit", "OK");
  m.RpcDone("Submit", "INVALID_ARGUMENT");
  SchedulerMetrics::Snapshot s;
  s.jobs_active = 1;
  s.jobs_done = 4;
  s.tasks_running = 3;
  s.refused_decisions = 7;
  SchedulerMetrics::NodeSnapshot n;
  n.name = "node-0";
  n.up = true;
  n.capacity.set_micro(kCpu, 2 * kMicroUnits);
  n.allocated.set_micro(kCpu, kMicroUnits / 2);
  n.used.set_micro(kMem, kMicroUnits / 4);
  s.nodes.push_back(n);
  m.Update(s);
  s.refused_decisions = 9;  // the engine's total grew by 2
  m.Update(s);
  const std::string text = m.Exposition();
  EXPECT_THAT(text, HasSubstr("weft_decisions_total{kind=\"launch\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("weft_decisions_total{kind=\"kill\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_attempt_ends_total{outcome=\"failed\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_refused_decisions_total 9\n"));
  EXPECT_THAT(text, HasSubstr("weft_rpc_total{code=\"INVALID_ARGUMENT\",method=\"Submit\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_jobs{state=\"done\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("weft_tasks{state=\"running\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("weft_node_capacity{node=\"node-0\",resource=\"cpu\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("weft_node_allocated{node=\"node-0\",resource=\"cpu\"} 0.5\n"));
  EXPECT_THAT(text, HasSubstr("weft_node_used{node=\"node-0\",resource=\"mem\"} 0.25\n"));
  EXPECT_THAT(text, HasSubstr("weft_journal_commit_seconds_bucket{le=\"0.0005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("weft_journal_commit_seconds_bucket{le=\"0.00025\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE weft_journal_commit_seconds histogram"));
}

DashboardServer::Handlers Fixed() {
  return {.metrics = [] { return std::string("weft_up 1\n"); },
          .page = [](int refresh) { return fmt::format("<!doctype html><title>live {}</title>", refresh); },
          .jobs_json = [] { return std::string(R"({"jobs":[]})"); },
          .nodes_json = [] { return std::string(R"({"nodes":[]})"); }};
}

TEST(DashboardServerTest, ServesMetricsAndPageOnLoopback) {
  auto server = DashboardServer::Start("127.0.0.1:0", "", Fixed());
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("http://" + (*server)->address());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->body, "weft_up 1\n");
  EXPECT_THAT(metrics->get_header_value("Content-Type"), HasSubstr("text/plain; version=0.0.4"));
  auto page = client.Get("/");
  ASSERT_TRUE(page);
  // By default the page does not reload itself: its tables poll the JSON.
  EXPECT_THAT(page->body, HasSubstr("<title>live 0</title>"));
  EXPECT_THAT(client.Get("/?refresh=7")->body, HasSubstr("<title>live 7</title>"));
  auto jobs = client.Get("/api/jobs");
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->body, R"({"jobs":[]})");
  EXPECT_THAT(jobs->get_header_value("Content-Type"), HasSubstr("application/json"));
  EXPECT_EQ(client.Get("/api/nodes")->body, R"({"nodes":[]})");
  EXPECT_EQ(client.Get("/?refresh=soon")->status, 400);
  EXPECT_EQ(client.Get("/nothing-here")->status, 404);
}

TEST(DashboardServerTest, WithATokenEveryRequestMustCarryIt) {
  auto server = DashboardServer::Start("127.0.0.1:0", "s3cret", Fixed());
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("http://" + (*server)->address());
  EXPECT_EQ(client.Get("/metrics")->status, 401);
  EXPECT_EQ(client.Get("/api/jobs")->status, 401);  // the JSON follows the same rule as the page
  EXPECT_EQ(client.Get("/metrics", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(client.Get("/metrics", {{"Authorization", "Bearer s3cret"}})->status, 200);
  EXPECT_EQ(client.Get("/?token=s3cret")->status, 200);  // what a browser can send
  EXPECT_THAT(client.Get("/?token=s3cre")->body, Not(HasSubstr("live")));
}

// /login?token=T (the link `weft cluster up` prints) sets an HttpOnly,
// SameSite=Strict cookie and sends the browser to / without the token; the
// cookie then reads the page and the JSON; a wrong token sets nothing.
TEST(DashboardServerTest, LoginTurnsTheTokenIntoACookieAndRedirects) {
  auto server = DashboardServer::Start("127.0.0.1:0", "s3cret", Fixed());
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client("http://" + (*server)->address());
  const auto wrong = client.Get("/login?token=s3cre");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_FALSE(wrong->has_header("Set-Cookie"));
  const auto login = client.Get("/login?token=s3cret");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");
  const std::string cookie = login->get_header_value("Set-Cookie");
  EXPECT_THAT(cookie, HasSubstr("weft_dashboard=s3cret;"));
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  EXPECT_THAT(cookie, Not(HasSubstr("Secure")));  // plain HTTP: a Secure cookie would never come back
  EXPECT_EQ(client.Get("/", {{"Cookie", "theme=dark; weft_dashboard=s3cret"}})->status, 200);
  EXPECT_EQ(client.Get("/api/jobs", {{"Cookie", "weft_dashboard=s3cret"}})->status, 200);
  EXPECT_EQ(client.Get("/api/jobs", {{"Cookie", "weft_dashboard=s3cre"}})->status, 401);
  EXPECT_EQ(client.Get("/api/jobs", {{"Cookie", "xweft_dashboard=s3cret"}})->status, 401);
}

TEST(DashboardServerTest, RefusesBadAddressesAndOpenPortsWithoutToken) {
  EXPECT_TRUE(absl::IsInvalidArgument(DashboardServer::Start("no-port", "", Fixed()).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(DashboardServer::Start("127.0.0.1:http", "", Fixed()).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(DashboardServer::Start("0.0.0.0:0", "", Fixed()).status()));
  auto first = DashboardServer::Start("127.0.0.1:0", "", Fixed());
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(absl::IsUnavailable(DashboardServer::Start((*first)->address(), "", Fixed()).status()));
}

// With the scheduler's TLS files the dashboard serves HTTPS, and with its CA
// it wants a client certificate that CA signed (certificates made by
// tests/runtime/make_tls_certs.sh at test time).
TEST(DashboardServerTest, ServesHttpsWithTheSchedulersCertificateAndWantsAClientCertificateOfItsCa) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("weft-dashboard-tls-" + std::to_string(getpid()));
  ASSERT_EQ(std::system(fmt::format("bash {} {} >/dev/null", WEFT_MAKE_TLS_CERTS, dir.string()).c_str()), 0);
  const auto file = [&](const char* name) { return (dir / name).string(); };
  absl::StatusOr<TlsConfig> tls =
      LoadServerTls({.ca = file("ca.pem"), .cert = file("server.pem"), .key = file("server.key")});
  ASSERT_TRUE(tls.ok()) << tls.status();
  auto server = DashboardServer::Start("127.0.0.1:0", "", Fixed(), *tls);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const std::string host = address.substr(0, address.rfind(':'));
  const int port = std::stoi(address.substr(address.rfind(':') + 1));

  httplib::SSLClient with_cert(host, port, file("client.pem"), file("client.key"));
  with_cert.set_ca_cert_path(file("ca.pem").c_str());
  with_cert.enable_server_certificate_verification(true);
  auto metrics = with_cert.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->body, "weft_up 1\n");

  httplib::SSLClient no_cert(host, port);
  no_cert.set_ca_cert_path(file("ca.pem").c_str());
  EXPECT_FALSE(no_cert.Get("/metrics"));
  httplib::SSLClient other_cert(host, port, file("other-client.pem"), file("other-client.key"));
  other_cert.set_ca_cert_path(file("ca.pem").c_str());
  EXPECT_FALSE(other_cert.Get("/metrics"));
  httplib::Client clear("http://" + address);
  auto plain = clear.Get("/metrics");
  EXPECT_TRUE(!plain || plain->body != "weft_up 1\n");

  // Over HTTPS the login cookie is Secure: it never travels in clear text.
  absl::StatusOr<TlsConfig> one_way = LoadServerTls({.cert = file("server.pem"), .key = file("server.key")});
  ASSERT_TRUE(one_way.ok()) << one_way.status();
  auto https = DashboardServer::Start("127.0.0.1:0", "s3cret", Fixed(), *one_way);
  ASSERT_TRUE(https.ok()) << https.status();
  httplib::SSLClient browser(host, std::stoi((*https)->address().substr((*https)->address().rfind(':') + 1)));
  browser.set_ca_cert_path(file("ca.pem").c_str());
  browser.enable_server_certificate_verification(true);
  const auto login = browser.Get("/login?token=s3cret");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_THAT(login->get_header_value("Set-Cookie"), HasSubstr("; Secure"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weft::runtime
