// `weft cluster up --slurm N --listen HOST:PORT` without TLS files (issue
// 34, finding 2): the scheduler serves TLS with the cluster's own
// certificate, made in DIR/tls, which the nodes (the Slurm job) and the
// owner's clients trust with no flag; a client that trusts another
// certificate is refused in the handshake, before any token is sent. On a
// real one-machine Slurm cluster (scripts/slurm-local.sh; skipped, visibly,
// where it cannot start), on loopback so it runs anywhere.
#include <sys/stat.h>

#include <cstdlib>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class SlurmClusterCertTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    setenv("XDG_STATE_HOME", (dir_ / "xdg").c_str(), 1);  // this test's own token index
  }
  // Cluster down first, while Slurm can still cancel its job; Slurm's daemons next.
  void TearDown() override {
    if (fs::exists(cluster_ / "scheduler.pid")) Run({"cluster", "down", "--dir", cluster_.string()});
    if (!slurm_.empty()) RunProgram("/bin/bash", {Script(), "stop", slurm_.string()});
    unsetenv("SLURM_CONF");
    unsetenv("XDG_STATE_HOME");
    RuntimeTest::TearDown();
  }
  static std::string Script() { return std::string(WEFT_SOURCE_DIR) + "/scripts/slurm-local.sh"; }
  // StartSlurm: false when Slurm cannot start here (the test skips).
  bool StartSlurm() {
    slurm_ = dir_ / "slurm";
    const Result up = RunProgram("/bin/bash", {Script(), "start", slurm_.string()});
    if (up.exit_code == 3) {
      skip_reason_ = up.err;
      return false;
    }
    EXPECT_EQ(up.exit_code, 0) << up.err;
    setenv("SLURM_CONF", (slurm_ / "slurm.conf").c_str(), 1);
    return up.exit_code == 0;
  }

  fs::path slurm_;
  std::string skip_reason_;
};

TEST_F(SlurmClusterCertTest, ATcpAddressGetsTlsWithTheClustersOwnCertificate) {
  if (!StartSlurm()) GTEST_SKIP() << "no local Slurm here: " << skip_reason_;
  cluster_ = dir_ / "cluster";
  const Result up = Run({"cluster", "up", "--slurm", "1", "--listen", "127.0.0.1:0", "--dir", cluster_.string()});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_THAT(up.out, HasSubstr("dashboard: https://"));
  const fs::path cert = cluster_ / "tls" / "cluster.pem";
  ASSERT_TRUE(fs::exists(cert));
  struct stat key {};
  ASSERT_EQ(stat((cluster_ / "tls" / "cluster.key").c_str(), &key), 0);
  EXPECT_EQ(key.st_mode & 077, 0u);
  EXPECT_THAT(Slurp(cluster_ / "slurm-nodes.sh"), HasSubstr(cert.string()));  // the nodes' --tls-ca
  const std::string address = up.out.substr(up.out.find_last_of('\n', up.out.size() - 2) + 1,
                                            up.out.size() - up.out.find_last_of('\n', up.out.size() - 2) - 2);
  EXPECT_THAT(address, ::testing::StartsWith("127.0.0.1:"));
  // The owner's client: no flag (the index has the token and the certificate).
  const Result submitted = Run({"submit", "--scheduler", address, "--wrap", "true"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_EQ(Wait(address, "0", 20).exit_code, 0);
  // A client that trusts another certificate (the Slurm test's CA) is refused in the handshake.
  const fs::path certs = dir_ / "certs";
  ASSERT_EQ(RunProgram("/bin/bash", {WEFT_MAKE_TLS_CERTS, certs.string()}).exit_code, 0);
  const Result stranger = Run({"status", "--scheduler", address, "--tls-ca", (certs / "ca.pem").string()});
  EXPECT_EQ(stranger.exit_code, 1);
  EXPECT_THAT(stranger.err, HasSubstr("TLS"));
  EXPECT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
}

}  // namespace
}  // namespace weft
