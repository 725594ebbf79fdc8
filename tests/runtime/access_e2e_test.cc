// End-to-end tests of issue 34, findings 1 and 2, with real daemons: a
// cluster folder another user made or can write is refused; pid files are
// not written through planted links; a local cluster serves a Unix socket
// in its private folder, which every command takes as its address and no
// other user can take over after a crash; a live scheduler's socket is
// never stolen and a dead one's never blocks its restart.
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>

#include "httplib.h"
#include "runtime_e2e_fixture.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// AccessTest: each test's client index ($XDG_STATE_HOME) is its own, so
// "the one local cluster" is this test's.
class AccessTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    const char* old = std::getenv("XDG_STATE_HOME");
    if (old != nullptr) saved_ = old;
    had_ = old != nullptr;
    setenv("XDG_STATE_HOME", (dir_ / "xdg").c_str(), 1);
  }
  void TearDown() override {
    RuntimeTest::TearDown();
    if (had_) {
      setenv("XDG_STATE_HOME", saved_.c_str(), 1);
    } else {
      unsetenv("XDG_STATE_HOME");
    }
  }

  mode_t Mode(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  }

  // UpIn runs `cluster up` with one node on `dir` and returns its result.
  Result UpIn(const fs::path& dir) {
    return Run({"cluster", "up", "--nodes", "1", "--cpu", "1", "--mem", "1", "--dir", dir.string()});
  }

  // NothingStartedIn: `up` refused before starting a daemon there.
  void ExpectNothingStartedIn(const fs::path& dir) {
    for (const char* pid : {"scheduler.pid", "node-0.pid"}) EXPECT_FALSE(fs::exists(dir / pid)) << pid;
    EXPECT_TRUE(SurvivorsAfterWaiting(dir).empty());
  }

  std::string saved_;
  bool had_ = false;
};

TEST_F(AccessTest, ALocalClusterServesAUnixSocketInItsPrivateFolderThatEveryCommandTakes) {
  const std::string address = Up(1);
  EXPECT_EQ(address, "unix:" + (cluster_ / "scheduler" / "socket").string());
  EXPECT_EQ(Mode(cluster_), 0700u);
  EXPECT_EQ(Mode(cluster_ / "scheduler") & 077, 0u);
  EXPECT_EQ(Mode(cluster_ / "scheduler" / "socket") & 077, 0u);
  // The node daemon took it (`weftd node --scheduler unix:PATH`), and so do the clients.
  const std::vector<std::string> ids = SubmitIds(address, Workload(R"({"name": "u", "stages": [{"name": "s",
      "tasks": 2, "duration": 0.1, "demand": {"cpu": 0.5, "mem": 0.1}, "command": "true"}]})"));
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(Wait(address, ids[0]).exit_code, 0);
  EXPECT_THAT(Run({"status", "--scheduler", address, ids[0]}).out, HasSubstr("succeeded"));
  EXPECT_THAT(Run({"nodes", "--scheduler", address}).out, HasSubstr("node-0"));
  ASSERT_EQ(Run({"submit", "--scheduler", address, "--wrap", "sleep 30"}).exit_code, 0);
  EXPECT_EQ(Run({"cancel", "--scheduler", address, "1"}).exit_code, 0);
  // The token index knows the socket: no --scheduler and no --token-file needed.
  const Result status = Run({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("nodes 1/1 up"));
  EXPECT_EQ(Run({"status", "--out", (dir_ / "out").string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tasks.csv"));
}

// Finding 2: after a crash nobody else can take the scheduler's address
// (there is no port to take: the socket's folder is its owner's), so the
// nodes and clients that keep dialling it send their token to nobody.
TEST_F(AccessTest, AfterACrashAnotherUserCannotTakeTheSchedulersAddress) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  const std::string address = Up(1);
  ASSERT_THAT(address, StartsWith("unix:"));
  const pid_t scheduler = PidOf("scheduler");
  ASSERT_EQ(kill(scheduler, SIGKILL), 0);
  const std::string path = address.substr(5);
  const pid_t other = fork();
  if (other == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    unlink(path.c_str());
    const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    _exit(bound || connected ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(other, &status, 0), other);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "another user could bind or reach " << path;
}

// Finding 1: a cluster folder others can write, or with a file in it that
// others can write, is refused before anything starts.
TEST_F(AccessTest, ClusterUpRefusesAFolderOthersCanWrite) {
  const fs::path open = dir_ / "open";
  fs::create_directories(open);
  chmod(open.c_str(), 0777);
  const Result r = UpIn(open);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("can be written by other users"));
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  ExpectNothingStartedIn(open);

  const fs::path planted = dir_ / "planted";
  fs::create_directories(planted / "node-0" / "running");
  chmod(planted.c_str(), 0700);
  std::ofstream(planted / "node-0" / "running" / "groups-1") << "1234 1 boot\n";
  chmod((planted / "node-0" / "running" / "groups-1").c_str(), 0666);
  const Result p = UpIn(planted);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_THAT(p.err, HasSubstr("groups-1"));
  ExpectNothingStartedIn(planted);
  EXPECT_EQ(Run({"cluster", "down", "--dir", planted.string()}).exit_code, 2);
}

// Finding 1, as the issue found it: a folder another user made, holding
// that user's token.
TEST_F(AccessTest, ClusterUpRefusesAFolderOrTokenOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give files to another user";
  const fs::path theirs = dir_ / "theirs";
  fs::create_directories(theirs);
  std::ofstream(theirs / "token") << std::string(64, 'a') << "\n";
  chmod((theirs / "token").c_str(), 0600);
  ASSERT_EQ(chown(theirs.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chown((theirs / "token").c_str(), 65534, 65534), 0);
  const Result r = UpIn(theirs);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is owned by"));
  ExpectNothingStartedIn(theirs);
  // The folder made ours, the token still theirs: refused too.
  ASSERT_EQ(chown(theirs.c_str(), 0, 0), 0);
  const Result t = UpIn(theirs);
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_THAT(t.err, HasSubstr("token"));
  ExpectNothingStartedIn(theirs);
}

// Finding 1: pid files are written without following a link planted in
// their place (it would truncate the link's target).
TEST_F(AccessTest, PidFilesAreNotWrittenThroughPlantedLinks) {
  cluster_ = dir_ / "cluster";
  fs::create_directories(cluster_);
  chmod(cluster_.c_str(), 0700);
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, cluster_ / "node-0.pid");
  fs::create_symlink(victim, cluster_ / "scheduler.pid");
  const std::string address = Up(1);
  EXPECT_FALSE(address.empty());
  EXPECT_EQ(Slurp(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(cluster_ / "node-0.pid"));
  EXPECT_GT(PidOf("node-0"), 0);
}

// Local cluster folders default to the user's own state directory.
TEST_F(AccessTest, ClusterUpWithoutADirUsesTheUsersStateDirectory) {
  const Result r = Run({"cluster", "up", "--nodes", "1", "--cpu", "1", "--mem", "1"});
  cluster_ = dir_ / "xdg" / "weft" / "cluster";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(fmt::format("running in {}", cluster_.string())));
  EXPECT_EQ(Mode(cluster_), 0700u);
  EXPECT_EQ(Run({"status"}).exit_code, 0);
  const Result down = Run({"cluster", "down"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_FALSE(fs::exists(cluster_ / "scheduler.pid"));
}

// Finding 2: the dashboard stays on loopback TCP (a browser needs it), so
// its link carries a token of its own that reads the dashboard and nothing
// else, and it is served over HTTPS with the cluster's own certificate
// (DIR/tls/cluster.pem, printed to be pinned, kept across `up`s): a
// stranger who takes its freed port cannot pass for it to a pinned client.
TEST_F(AccessTest, TheDashboardIsHttpsWithTheClustersCertificateAndItsTokenReadsTheDashboardOnly) {
  const std::vector<std::string> up_args = {"cluster", "up", "--nodes", "1", "--cpu", "1", "--mem", "1", "--dir",
                                            (dir_ / "cluster").string()};
  const Result up = Run(up_args);
  cluster_ = dir_ / "cluster";
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const std::string token = Slurp(cluster_ / "token"), view = Slurp(cluster_ / "dashboard-token");
  ASSERT_EQ(view.size(), 65u);
  EXPECT_NE(view, token);
  const std::string ca = (cluster_ / "tls" / "cluster.pem").string();
  EXPECT_THAT(up.out, HasSubstr("dashboard: https://"));
  EXPECT_THAT(up.out, HasSubstr("/login?token=" + view.substr(0, 64) + " "));
  EXPECT_THAT(up.out, HasSubstr("certificate: " + ca + ";"));
  EXPECT_THAT(up.out, Not(HasSubstr(token.substr(0, 64))));
  std::string http = Slurp(cluster_ / "scheduler" / "http-address");
  http = http.substr(0, http.size() - 1);
  const int port = std::stoi(http.substr(http.rfind(':') + 1));
  httplib::SSLClient dashboard("127.0.0.1", port);
  dashboard.set_ca_cert_path(ca.c_str());
  dashboard.enable_server_certificate_verification(true);
  const httplib::Result page = dashboard.Get("/metrics?token=" + view.substr(0, 64));
  ASSERT_TRUE(page) << httplib::to_string(page.error());
  EXPECT_EQ(page->status, 200);
  const httplib::Result login = dashboard.Get("/login?token=" + view.substr(0, 64));
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_THAT(login->get_header_value("Set-Cookie"), HasSubstr("; Secure"));
  httplib::Client clear("http://" + http);  // no plain HTTP on that port
  const httplib::Result plain = clear.Get("/metrics?token=" + view.substr(0, 64));
  EXPECT_TRUE(!plain || plain->status != 200);
  const std::string address = up.out.substr(up.out.find_last_of('\n', up.out.size() - 2) + 1);
  const Result api = Run({"status", "--scheduler", address.substr(0, address.size() - 1), "--token-file",
                          (cluster_ / "dashboard-token").string()});
  EXPECT_EQ(api.exit_code, 2) << api.out;
  EXPECT_THAT(api.err, HasSubstr("unauthenticated"));

  // Kept across ups: what a browser or Prometheus pinned stays valid.
  const std::string pem = Slurp(ca);
  ASSERT_EQ(Run({"cluster", "down", "--dir", cluster_.string()}).exit_code, 0);
  const Result again = Run(up_args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(Slurp(ca), pem);
}

// --plain-http says clear text out loud: the dashboard is then plain HTTP.
TEST_F(AccessTest, PlainHttpIsTheDashboardOnlyWhenAskedFor) {
  cluster_ = dir_ / "cluster";
  const Result up = Run({"cluster", "up", "--nodes", "1", "--cpu", "1", "--mem", "1", "--plain-http", "--dir",
                         cluster_.string()});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_THAT(up.out, HasSubstr("dashboard: http://"));
  EXPECT_THAT(up.out, HasSubstr("plain HTTP"));
  std::string http = Slurp(cluster_ / "scheduler" / "http-address");
  httplib::Client clear("http://" + http.substr(0, http.size() - 1));
  const httplib::Result page = clear.Get("/metrics?token=" + Slurp(cluster_ / "dashboard-token").substr(0, 64));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

// Finding 2 with finding 5: `weftd scheduler --listen unix:PATH` never
// steals the socket of a live scheduler, and a dead one's stale socket does
// not keep it from coming back at the same address with its command line.
TEST_F(AccessTest, ALiveSchedulersSocketIsNotStolenAndADeadOnesDoesNotBlockItsRestart) {
  fs::create_directories(dir_ / "run");
  chmod((dir_ / "run").c_str(), 0700);
  const std::string address = "unix:" + (dir_ / "run" / "socket").string();
  const std::vector<std::string> first = {"scheduler", "--listen", address, "--state", (dir_ / "state").string(),
                                          "--nodes", "1"};
  const pid_t live = SpawnWeftd(first, dir_ / "s1.out");
  ASSERT_TRUE(Until([&] { return fs::exists(dir_ / "state" / "address"); }));
  EXPECT_EQ(Slurp(dir_ / "state" / "address"), address + "\n");
  const Result thief = RunProgram(WEFTD_BINARY, {"scheduler", "--listen", address, "--state",
                                                 (dir_ / "state2").string(), "--nodes", "1"});
  EXPECT_EQ(thief.exit_code, 2);
  EXPECT_THAT(thief.err, HasSubstr("a live scheduler already listens"));
  EXPECT_EQ(Run({"status", "--scheduler", address}).exit_code, 0);  // still the first's
  ASSERT_EQ(kill(live, SIGKILL), 0);
  waitpid(live, nullptr, 0);
  ASSERT_TRUE(fs::exists(dir_ / "run" / "socket"));  // stale
  SpawnWeftd(first, dir_ / "s2.out");
  EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).exit_code == 0; }))
      << Slurp(dir_ / "s2.out");
}

}  // namespace
}  // namespace weft
