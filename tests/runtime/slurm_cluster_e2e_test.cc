// `weft cluster up --slurm N` end to end (issue 20, "On an existing cluster
// manager"): the scheduler here, the nodes as one job of a real one-machine
// Slurm cluster (scripts/slurm-local.sh; skipped, visibly, where it cannot
// start), a two-stage job run on them, and `cluster down` leaving neither a
// Slurm job nor a weftd behind. Bad input leaves nothing running.
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "runtime/runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// WeftdsOf: running processes whose command line mentions `dir` (zombies
// have none, and are not running).
std::vector<std::string> WeftdsOf(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("weftd") != std::string::npos && cmdline.find(dir.string()) != std::string::npos) {
      found.push_back(cmdline);
    }
  }
  return found;
}

class SlurmClusterTest : public RuntimeTest {
 protected:
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
  // Cluster down first, while Slurm can still cancel its job; Slurm's
  // daemons next, while their directory is there.
  void TearDown() override {
    if (fs::exists(cluster_ / "scheduler.pid")) Run({"cluster", "down", "--dir", cluster_.string()});
    if (!slurm_.empty()) RunProgram("/bin/bash", {Script(), "stop", slurm_.string()});
    unsetenv("SLURM_CONF");
    RuntimeTest::TearDown();
  }
  static std::string Script() { return std::string(WEFT_SOURCE_DIR) + "/scripts/slurm-local.sh"; }
  std::string Squeue() { return RunProgram("/bin/sh", {"-c", "squeue -h -o %i"}).out; }
  // ExpectNothingRunning: `dir`'s scheduler stopped and no Slurm job left.
  void ExpectNothingRunning(const fs::path& dir) {
    EXPECT_THAT(WeftdsOf(dir), ::testing::IsEmpty());
    EXPECT_FALSE(fs::exists(dir / "slurm-job"));
  }

  fs::path slurm_;
  std::string skip_reason_;
};

TEST_F(SlurmClusterTest, NodesRunAsOneSlurmJobAndGoWithClusterDown) {
  if (!StartSlurm()) GTEST_SKIP() << "no local Slurm here: " << skip_reason_;
  // sbatch refusing (no such partition): one line, exit 2, the scheduler started for it stopped.
  const fs::path refused = dir_ / "refused";
  const Result bad = Run({"cluster", "up", "--slurm", "2", "--partition", "nosuch", "--dir", refused.string()});
  ExpectBadInput(bad);
  EXPECT_THAT(bad.err, HasSubstr("sbatch refused"));
  ExpectNothingRunning(refused);
  EXPECT_EQ(Squeue(), "");

  // A job that ends before its nodes register (here: srun not on its PATH) fails up, exit 1, nothing left.
  const fs::path ended = dir_ / "ended";
  const Result lost = Run({"cluster", "up", "--slurm", "2", "--sbatch-arg=--export=PATH=/nonexistent", "--dir",
                           ended.string()});
  EXPECT_EQ(lost.exit_code, 1) << lost.err;
  EXPECT_THAT(lost.err, HasSubstr("of the nodes ended"));
  ExpectNothingRunning(ended);
  EXPECT_EQ(Squeue(), "");

  cluster_ = dir_ / "cluster";
  const Result up = Run({"cluster", "up", "--slurm", "2", "--dir", cluster_.string()});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_THAT(up.out, HasSubstr("(Slurm job "));
  const std::string job = Slurp(cluster_ / "slurm-job");
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(Squeue(), job);  // the nodes' job, and only it
  const std::string address = up.out.substr(up.out.find_last_of('\n', up.out.size() - 2) + 1,
                                            up.out.size() - up.out.find_last_of('\n', up.out.size() - 2) - 2);

  const std::vector<std::string> ids = SubmitIds(address, Workload(R"(
    {"name": "two", "stages": [
      {"name": "a", "tasks": 3, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "command": "true"},
      {"name": "b", "tasks": 2, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "after": ["a"],
       "command": "true"}]})"));
  ASSERT_EQ(ids.size(), 1u);
  const Result waited = Wait(address, ids[0], 20);
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  EXPECT_THAT(Run({"status", "--scheduler", address}).out, HasSubstr("nodes 2/2 up"));
  // Every task ran on a node named after the Slurm node (slurm-local.sh's is `hostname -s`).
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const std::string node = std::string(host).substr(0, std::string(host).find('.'));
  std::set<std::string> machines;
  for (const std::string& row : TaskRows(address)) machines.insert(CsvRows(row)[0][4]);
  EXPECT_FALSE(machines.empty());
  for (const std::string& m : machines) EXPECT_TRUE(m == node + "-0" || m == node + "-1") << m;
  EXPECT_TRUE(fs::exists(cluster_ / ("node-" + node + "-0")));
  EXPECT_TRUE(fs::exists(cluster_ / ("node-" + node + "-1")));

  ExpectBadInput(Run({"cluster", "up", "--slurm", "2", "--dir", cluster_.string()}));  // already running
  EXPECT_EQ(Squeue(), job);

  const Result down = Run({"cluster", "down", "--dir", cluster_.string()});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_EQ(Squeue(), "");
  ExpectNothingRunning(cluster_);
}

// With TLS (the set-up beyond loopback, here on loopback so it runs
// anywhere): the nodes trust the scheduler's certificate through --tls-ca,
// and so does a client given it.
TEST_F(SlurmClusterTest, NodesReachATlsSchedulerWithItsCa) {
  if (!StartSlurm()) GTEST_SKIP() << "no local Slurm here: " << skip_reason_;
  const fs::path certs = dir_ / "certs";
  ASSERT_EQ(RunProgram("/bin/bash", {WEFT_MAKE_TLS_CERTS, certs.string()}).exit_code, 0);
  cluster_ = dir_ / "tls";
  const std::string ca = (certs / "ca.pem").string();
  const Result up = Run({"cluster", "up", "--slurm", "1", "--tls-cert", (certs / "server.pem").string(), "--tls-key",
                         (certs / "server.key").string(), "--tls-ca", ca, "--dir", cluster_.string()});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_THAT(up.out, HasSubstr("dashboard: https://"));
  EXPECT_THAT(Slurp(cluster_ / "slurm-nodes.sh"), HasSubstr("--tls-ca"));
  const std::string address = up.out.substr(up.out.find_last_of('\n', up.out.size() - 2) + 1,
                                            up.out.size() - up.out.find_last_of('\n', up.out.size() - 2) - 2);
  const Result submitted = Run({"submit", "--scheduler", address, "--tls-ca", ca,
                                Write("w.json", Workload(R"({"name": "one", "stages": [{"name": "s", "tasks": 1,
                                  "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "command": "true"}]})"))});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const Result waited = Run({"wait", "--scheduler", address, "--tls-ca", ca, "0", "--timeout", "20"});
  EXPECT_EQ(waited.exit_code, 0) << waited.out << waited.err;
  EXPECT_NE(Run({"status", "--scheduler", address}).exit_code, 0) << "a client without the CA is refused";
  EXPECT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
  EXPECT_EQ(Squeue(), "");
  ExpectNothingRunning(cluster_);
}

// No sbatch: one line, exit 2, and the scheduler started for it stopped (no Slurm needed).
TEST_F(SlurmClusterTest, WithoutSbatchNothingIsLeftRunning) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  const fs::path dir = dir_ / "nosbatch";
  const Result r = Run({"cluster", "up", "--slurm", "2", "--dir", dir.string()});
  setenv("PATH", saved.c_str(), 1);
  ExpectBadInput(r);
  EXPECT_THAT(r.err, HasSubstr("sbatch"));
  ExpectNothingRunning(dir);
}

TEST_F(SlurmClusterTest, SlurmFlagsAreCheckedBeforeAnythingStarts) {
  const fs::path dir = dir_ / "flags";
  ExpectBadInput(Run({"cluster", "up", "--slurm", "2", "--nodes", "2", "--dir", dir.string()}));
  ExpectBadInput(Run({"cluster", "up", "--slurm", "2", "--cpu", "1", "--dir", dir.string()}));
  ExpectBadInput(Run({"cluster", "up", "--nodes", "1", "--partition", "p", "--dir", dir.string()}));
  ExpectBadInput(Run({"cluster", "up", "--dir", dir.string()}));
  const std::string cert = Write("cert.pem", "x");
  ExpectBadInput(Run({"cluster", "up", "--slurm", "1", "--tls-cert", cert, "--dir", dir.string()}));  // no key, CA
  ExpectBadInput(Run({"cluster", "up", "--nodes", "1", "--tls-ca", cert, "--dir", dir.string()}));
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace weft
