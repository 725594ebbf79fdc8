// File: tests/runtime/restart_e2e_test.cc
//
// A restarted scheduler stays where it was (issue 34, finding 5): `weftd
// scheduler --listen HOST:0` started again with the same command line (as a
// service manager restarts it) listens on the port chosen at its first
// start, or refuses to start when that port is taken; and `weft cluster up`
// whose restart of the scheduler fails leaves the rest of the cluster
// running and its address in place.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime_e2e_fixture.h"

namespace weft {
namespace {


// Port: the port of HOST:PORT.
int Port(const std::string& address) { return std::stoi(address.substr(address.rfind(':') + 1)); }

// Occupy listens on 127.0.0.1:port (without SO_REUSEPORT) until closed; -1
// when it cannot.
int Occupy(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // past the killed daemon's TIME_WAIT
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 1) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// OccupyAddress holds `address` as a live daemon would, until closed: a TCP
// port by listening on it, a unix:PATH socket by holding its lock
// (runtime/unix_listener.h). -1 when it cannot.
int OccupyAddress(const std::string& address) {
  if (!address.starts_with("unix:")) return Occupy(Port(address));
  const int fd = open((address.substr(5) + ".lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Living: the process exists and is not a zombie (a daemon `weft cluster up`
// started is not our child, so nothing here reaps it).
bool Living(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

// RestartTest: a scheduler started with `--listen 127.0.0.1:0`, then
// killed with -9; its state dir keeps what it chose.
class RestartTest : public RuntimeTest {
 protected:
  // StartThenKill returns the address the first start listened on.
  std::string StartThenKill() {
    const std::string first = SpawnScheduler({"--nodes", "1"});
    if (first.empty()) return first;
    const pid_t daemon = spawned_.back();
    EXPECT_EQ(kill(daemon, SIGKILL), 0);
    waitpid(daemon, nullptr, 0);
    fs::remove(dir_ / "state" / "address");  // the address file the fixture reads, not the kept port
    return first;
  }
};

TEST_F(RestartTest, ASchedulerRestartedWithItsCommandLineListensWhereItDid) {
  const std::string first = StartThenKill();
  ASSERT_FALSE(first.empty());
  const std::string again = SpawnScheduler({"--nodes", "1"});  // the same command line: --listen 127.0.0.1:0
  EXPECT_EQ(again, first);
  EXPECT_EQ(Run({"status", "--scheduler", first}).exit_code, 0);
}

TEST_F(RestartTest, ASchedulerWhoseKeptPortIsTakenRefusesToStartElsewhere) {
  const std::string first = StartThenKill();
  ASSERT_FALSE(first.empty());
  int taken = -1;
  ASSERT_TRUE(Until([&] { return (taken = Occupy(Port(first))) >= 0; }));
  const pid_t restarted = SpawnWeftd(
      {"scheduler", "--listen", "127.0.0.1:0", "--state", (dir_ / "state").string(), "--nodes", "1"}, dir_ / "s2.out");
  int status = 0;
  ASSERT_TRUE(Until([&] { return waitpid(restarted, &status, WNOHANG) == restarted; }));
  close(taken);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << Slurp(dir_ / "s2.out");
  EXPECT_THAT(Slurp(dir_ / "s2.out"), testing::HasSubstr(fmt::format("cannot listen on {}", first)));
  EXPECT_FALSE(fs::exists(dir_ / "state" / "address"));  // not published elsewhere
}

TEST_F(RestartTest, AClusterUpWhoseSchedulerCannotComeBackLeavesTheRestRunning) {
  const std::string address = Up(2);
  ASSERT_FALSE(address.empty());
  const pid_t node0 = PidOf("node-0"), node1 = PidOf("node-1");
  ASSERT_GT(node0, 0);
  ASSERT_GT(node1, 0);
  const pid_t scheduler = PidOf("scheduler");
  ASSERT_EQ(kill(scheduler, SIGKILL), 0);
  ASSERT_TRUE(Until([&] { return !Living(scheduler); }));
  // The killed scheduler's connections to its nodes may hold the port for a
  // moment after it is gone (their close is still under way): wait for it.
  // (A local cluster's address is a Unix socket: its lock is taken instead.)
  int taken = -1;
  ASSERT_TRUE(Until([&] { return (taken = OccupyAddress(address)) >= 0; }));
  const Result failed = Run({"cluster", "up", "--nodes", "2", "--dir", cluster_.string(), "--cpu", "1", "--mem", "2"});
  EXPECT_EQ(failed.exit_code, 2) << failed.err;
  // Nothing torn down: the nodes run, and the address stays where they look.
  EXPECT_TRUE(Living(node0));
  EXPECT_TRUE(Living(node1));
  EXPECT_EQ(Slurp(cluster_ / "scheduler" / "address"), address + "\n");
  close(taken);
  // Once the port is free, the next up brings the scheduler back there, and
  // the surviving nodes find it.
  const std::string back = Up(2);
  EXPECT_EQ(back, address);
  EXPECT_EQ(PidOf("node-0"), node0);
  EXPECT_TRUE(Until([&] { return Run({"status", "--scheduler", address}).out.find("nodes 2/2 up") != std::string::npos; }));
}

}  // namespace
}  // namespace weft
