// TLS on the scheduler's port (issue 20, "Security model, for more than one
// machine"; docs/runtime.md, "Security"), end to end on loopback: the
// certificates are made at test time by tests/runtime/make_tls_certs.sh
// with the openssl CLI, the daemons are real processes.
#include <sys/stat.h>

#include "httplib.h"

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class TlsTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    certs_ = dir_ / "certs";
    const Result made = RunProgram("/bin/bash", {WEFT_MAKE_TLS_CERTS, certs_.string()});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  std::string Cert(const std::string& name) const { return (certs_ / name).string(); }

  // Mutual TLS: the scheduler presents server.pem and wants a certificate ca.pem signed.
  std::vector<std::string> ServerTls() const {
    return {"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.key"), "--tls-ca", Cert("ca.pem")};
  }
  std::vector<std::string> ClientTls(const std::string& ca = "ca", const std::string& client = "client") const {
    return {"--tls-ca", Cert(ca + ".pem"), "--tls-cert", Cert(client + ".pem"), "--tls-key", Cert(client + ".key")};
  }
  static std::vector<std::string> Plus(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  // Refused: a client call that fails in one line, exit 1 (it cannot get
  // through, as when the scheduler is down), saying `why`.
  void ExpectRefused(const std::string& address, const std::vector<std::string>& tls, const std::string& why) {
    const Result r = Run(Plus({"status", "--scheduler", address}, tls));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(why));
  }

  fs::path certs_;
};

TEST_F(TlsTest, AMutualTlsClusterRunsADagAndRefusesWhoeverHasNoCertificateOfItsCa) {
  const std::string address = SpawnScheduler(Plus({"--nodes", "2"}, ServerTls()));
  for (const std::string name : {"n0", "n1"}) {
    SpawnWeftd(Plus({"node", "--scheduler", address, "--name", name, "--cpu", "1", "--mem", "1", "--work-dir",
                     (dir_ / name).string()},
                    ClientTls()),
               dir_ / (name + ".out"));
  }
  ASSERT_TRUE(Until([&] {
    return Run(Plus({"status", "--scheduler", address}, ClientTls())).out.find("nodes 2/2 up") != std::string::npos;
  }));
  const std::string file = Write("dag.json", Workload(R"({"name": "dag", "stages": [
      {"name": "map", "tasks": 2, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "command": "true"},
      {"name": "reduce", "tasks": 1, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "after": ["map"],
       "command": "true"}]})"));
  const Result submit = Run(Plus({"submit", "--scheduler", address, file}, ClientTls()));
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_EQ(submit.out, "0\n");
  const Result wait = Run(Plus({"wait", "--scheduler", address, "0", "--timeout", "30"}, ClientTls()));
  EXPECT_EQ(wait.exit_code, 0) << wait.err;

  // Clear text to the TLS port: the handshake never happens.
  ExpectRefused(address, {}, "give --tls-ca");
  // TLS, but no certificate for a scheduler that wants one.
  ExpectRefused(address, {"--tls-ca", Cert("ca.pem")}, "wants --tls-cert and --tls-key signed by its own CA");
  // A certificate of another CA.
  ExpectRefused(address, ClientTls("ca", "other-client"), "wants --tls-cert and --tls-key signed by its own CA");
  // A client that trusts another CA refuses the scheduler's certificate.
  ExpectRefused(address, ClientTls("other-ca", "client"), "certificate verify failed");
  // The same environment variables as the token's file: no flag needed.
  setenv("WEFT_TLS_CA", Cert("ca.pem").c_str(), 1);
  setenv("WEFT_TLS_CERT", Cert("client.pem").c_str(), 1);
  setenv("WEFT_TLS_KEY", Cert("client.key").c_str(), 1);
  const Result by_env = Run({"status", "--scheduler", address});
  for (const char* name : {"WEFT_TLS_CA", "WEFT_TLS_CERT", "WEFT_TLS_KEY"}) unsetenv(name);
  EXPECT_EQ(by_env.exit_code, 0) << by_env.err;
  EXPECT_THAT(by_env.out, HasSubstr("done"));
}

TEST_F(TlsTest, ATlsClientOfAClearTextSchedulerIsTold) {
  const std::string address = SpawnScheduler({});
  ExpectRefused(address, {"--tls-ca", Cert("ca.pem")}, "does not use TLS");
}

TEST_F(TlsTest, BadTlsFilesAreOneLineAndExit2) {
  const std::string state = (dir_ / "s").string();
  const auto scheduler = [&](const std::vector<std::string>& tls) {
    return RunProgram(WEFTD_BINARY, Plus({"scheduler", "--listen", "127.0.0.1:0", "--state", state}, tls));
  };
  const auto expect = [&](const Result& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(why));
  };
  expect(scheduler({"--tls-cert", Cert("server.pem")}), "--tls-cert needs --tls-key");
  expect(scheduler({"--tls-cert", Cert("server.pem"), "--tls-key", Cert("client.key")}), "is not the key of");
  expect(scheduler({"--tls-cert", Cert("missing.pem"), "--tls-key", Cert("server.key")}), "cannot read");
  expect(scheduler({"--tls-cert", Cert("server.key"), "--tls-key", Cert("server.key")}), "no PEM certificate");
  expect(scheduler({"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.pem")}), "no PEM private key");
  expect(scheduler({"--tls-ca", Cert("ca.pem")}), "needs --tls-cert and --tls-key");
  ASSERT_EQ(chmod(Cert("server.key").c_str(), 0644), 0);
  expect(scheduler({"--tls-cert", Cert("server.pem"), "--tls-key", Cert("server.key")}), "chmod o-rwx");
  // The node and the client check theirs the same way, before connecting.
  expect(RunProgram(WEFTD_BINARY, {"node", "--scheduler", "127.0.0.1:1", "--tls-cert", Cert("client.pem"), "--tls-key",
                                   Cert("client.key"), "--work-dir", (dir_ / "n").string()}),
         "need --tls-ca");
  const Result client = Run({"status", "--scheduler", "127.0.0.1:1", "--tls-ca", Cert("ca.key")});
  ExpectBadInput(client);
  EXPECT_THAT(client.err, HasSubstr("--tls-ca"));
  EXPECT_FALSE(fs::exists(dir_ / "s" / "address"));
}

TEST_F(TlsTest, BeyondLoopbackTheSchedulerWantsTlsOrInsecure) {
  const std::string token = Write("token", "s3cret\n");
  chmod(token.c_str(), 0600);
  const Result clear = RunProgram(WEFTD_BINARY, {"scheduler", "--listen", "0.0.0.0:0", "--state", (dir_ / "s").string(),
                                                 "--token-file", token});
  EXPECT_EQ(clear.exit_code, 2);
  EXPECT_EQ(CountLines(clear.err), 1) << clear.err;
  EXPECT_THAT(clear.err, HasSubstr("--insecure"));
  // Also the dashboard's port (its HTTPS takes the same files).
  const Result http = RunProgram(WEFTD_BINARY, {"scheduler", "--listen", "unix:" + (dir_ / "s.sock").string(), "--state",
                                                (dir_ / "s").string(), "--token-file", token, "--http", "0.0.0.0:0"});
  EXPECT_EQ(http.exit_code, 2);
  EXPECT_THAT(http.err, HasSubstr("0.0.0.0:0 in clear text"));
  // With TLS it starts, and a client reaches it through loopback (the certificate names 127.0.0.1).
  const fs::path state = dir_ / "tls";
  SpawnWeftd({"scheduler", "--listen", "0.0.0.0:0", "--state", state.string(), "--token-file", token, "--tls-cert",
              Cert("server.pem"), "--tls-key", Cert("server.key")},
             dir_ / "tls.out");
  ASSERT_TRUE(Until([&] { return fs::exists(state / "address"); }));
  const std::string port = Slurp(state / "address").substr(Slurp(state / "address").rfind(':'));
  const Result status = Run({"status", "--scheduler", "127.0.0.1" + port.substr(0, port.size() - 1), "--token-file",
                             token, "--tls-ca", Cert("ca.pem")});
  EXPECT_EQ(status.exit_code, 0) << status.err;
}

// On loopback too, a token crosses TCP only inside TLS or with --insecure
// (issue 34, finding 2): the scheduler refuses to take it in clear text, on
// its gRPC port and its dashboard, and a node refuses to send it; with
// --insecure on both sides it runs as before. A dashboard with a
// certificate of its own serves HTTPS beside a clear-text Unix socket.
TEST_F(TlsTest, OnLoopbackATokenCrossesTcpOnlyInsideTlsOrWithInsecure) {
  const std::string token = Write("token", "s3cret\n");
  chmod(token.c_str(), 0600);
  const auto expect_refused = [](const Result& r, const std::string& why) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(why));
  };
  const std::string state = (dir_ / "s").string();
  expect_refused(RunProgram(WEFTD_BINARY, {"scheduler", "--listen", "127.0.0.1:0", "--state", state, "--token-file", token}),
                 "--insecure");
  const std::string socket = "unix:" + (dir_ / "s.sock").string();
  expect_refused(RunProgram(WEFTD_BINARY, {"scheduler", "--listen", socket, "--state", state, "--token-file", token,
                                           "--http", "127.0.0.1:0"}),
                 "127.0.0.1:0");
  expect_refused(RunProgram(WEFTD_BINARY, {"node", "--scheduler", "127.0.0.1:1", "--token-file", token, "--work-dir",
                                           (dir_ / "n").string()}),
                 "--insecure");
  EXPECT_FALSE(fs::exists(dir_ / "s" / "address"));

  // The dashboard's own certificate: HTTPS beside the socket, no --insecure.
  const fs::path https_state = dir_ / "h";
  SpawnWeftd({"scheduler", "--listen", socket, "--state", https_state.string(), "--token-file", token, "--http",
              "127.0.0.1:0", "--http-tls-cert", Cert("server.pem"), "--http-tls-key", Cert("server.key")},
             dir_ / "h.out");
  ASSERT_TRUE(Until([&] { return fs::exists(https_state / "address"); })) << Slurp(dir_ / "h.out");
  const std::string http = Slurp(https_state / "http-address");
  const std::string port = http.substr(http.rfind(':') + 1, http.size() - http.rfind(':') - 2);
  httplib::SSLClient pinned("127.0.0.1", std::stoi(port));
  pinned.set_ca_cert_path(Cert("ca.pem").c_str());
  pinned.enable_server_certificate_verification(true);
  pinned.set_bearer_token_auth("s3cret");
  const auto metrics = pinned.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_THAT(metrics->body, HasSubstr("weft_jobs"));
  httplib::Client clear("http://127.0.0.1:" + port);
  clear.set_bearer_token_auth("s3cret");
  const auto plain = clear.Get("/metrics");
  EXPECT_TRUE(!plain || plain->body.find("weft_jobs") == std::string::npos);

  // Clear text said out loud on both sides.
  const fs::path clear_state = dir_ / "c";
  SpawnWeftd({"scheduler", "--listen", "127.0.0.1:0", "--state", clear_state.string(), "--token-file", token,
              "--insecure"},
             dir_ / "c.out");
  ASSERT_TRUE(Until([&] { return fs::exists(clear_state / "address"); })) << Slurp(dir_ / "c.out");
  const std::string address = Slurp(clear_state / "address").substr(0, Slurp(clear_state / "address").size() - 1);
  expect_refused(Run({"status", "--scheduler", address, "--token-file", token}), "--insecure");
  const Result status = Run({"status", "--scheduler", address, "--token-file", token, "--insecure"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
}

}  // namespace
}  // namespace weft
