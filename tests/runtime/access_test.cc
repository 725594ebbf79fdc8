// Unit tests of issue 34, findings 1 and 2, below the daemons: weft trusts
// only its user's own folders and files (runtime/owned_files.h), a record
// of process groups or cgroups that weft did not write makes a node kill
// nothing, files are created without following links, a Unix socket
// address is claimed once (runtime/unix_listener.h) and has an entry in the
// client's token index.
#include <fcntl.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/auth.h"
#include "runtime/client/scheduler_client.h"
#include "runtime/cluster_cert.h"
#include "runtime/kept_address.h"
#include "runtime/local_tokens.h"
#include "runtime/node/group_record.h"
#include "runtime/node/proc_usage.h"
#include "runtime/node/task_cgroups.h"
#include "runtime/node/task_runner.h"
#include "runtime/owned_files.h"
#include "runtime/tls.h"
#include "runtime/unix_listener.h"
#include "weft/v1/weft.grpc.pb.h"

namespace weft::runtime {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class AccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "weft_access_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (pid_t pid : children_) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    fs::remove_all(dir_);
  }

  std::string Slurp(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // SleepGroup: a `sleep 30` leading a process group of its own, and its stat once it leads it.
  ProcStat SleepGroup() {
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(pid, pid);
    children_.push_back(pid);
    std::optional<ProcStat> st;
    for (int i = 0; i < 500 && (!(st = ReadProcStat(pid)) || st->pgrp != pid); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    EXPECT_TRUE(st.has_value());
    return st.value_or(ProcStat{});
  }

  // Alive: the child is neither gone nor a zombie.
  static bool Alive(pid_t pid) {
    const std::optional<ProcStat> st = ReadProcStat(pid);
    return st && st->state != 'Z';
  }

  fs::path dir_;
  std::vector<pid_t> children_;
};

TEST_F(AccessTest, AFolderOthersCanWriteIsNotTrusted) {
  EXPECT_TRUE(CheckOwned(dir_, "folder").ok());
  fs::create_directories(dir_ / "shared");
  chmod((dir_ / "shared").c_str(), 0777);
  const absl::Status s = CheckOwned(dir_ / "shared", "cluster folder");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("can be written by other users (mode 777)"));
  chmod((dir_ / "shared").c_str(), 0775);
  EXPECT_FALSE(CheckOwned(dir_ / "shared", "cluster folder").ok());  // the group is other users too
  chmod((dir_ / "shared").c_str(), 0755);
  EXPECT_TRUE(CheckOwned(dir_ / "shared", "cluster folder").ok());
  // A file deep in a checked tree counts; one in a skipped folder does not.
  fs::create_directories(dir_ / "shared" / "node-0" / "tasks");
  std::ofstream(dir_ / "shared" / "node-0" / "tasks" / "out") << "x";
  chmod((dir_ / "shared" / "node-0" / "tasks" / "out").c_str(), 0666);
  EXPECT_TRUE(CheckOwnedTree(dir_ / "shared", 3, "cluster folder", {"tasks"}).ok());
  EXPECT_FALSE(CheckOwnedTree(dir_ / "shared", 3, "cluster folder").ok());
  EXPECT_TRUE(CheckOwnedNamed(dir_ / "shared" / "node-0", kNodeFilesWeftReads, "work dir").ok());
  fs::create_directories(dir_ / "shared" / "node-0" / "running");
  std::ofstream(dir_ / "shared" / "node-0" / "running" / "groups-1") << "";
  chmod((dir_ / "shared" / "node-0" / "running" / "groups-1").c_str(), 0622);
  EXPECT_FALSE(CheckOwnedNamed(dir_ / "shared" / "node-0", kNodeFilesWeftReads, "work dir").ok());
}

TEST_F(AccessTest, AFolderOfAnotherUserIsNotTrusted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  fs::create_directories(dir_ / "theirs");
  ASSERT_EQ(chown((dir_ / "theirs").c_str(), 65534, 65534), 0);
  const absl::Status s = MakePrivateDir(dir_ / "theirs", "cluster folder");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("is owned by"));
  // A token planted in a folder of ours by another user is not taken.
  std::ofstream(dir_ / "token") << "0123\n";
  chmod((dir_ / "token").c_str(), 0600);
  ASSERT_EQ(chown((dir_ / "token").c_str(), 65534, 65534), 0);
  EXPECT_FALSE(EnsureTokenFile(dir_ / "token").ok());
}

TEST_F(AccessTest, APrivateDirIsMadeWithMode0700) {
  ASSERT_TRUE(MakePrivateDir(dir_ / "a" / "cluster", "cluster folder").ok());
  EXPECT_EQ(fs::status(dir_ / "a" / "cluster").permissions(), fs::perms::owner_all);
  // A link to a folder is not taken for it (its target could change).
  fs::create_directory_symlink(dir_ / "a" / "cluster", dir_ / "link");
  EXPECT_THAT(std::string(MakePrivateDir(dir_ / "link", "cluster folder").message()), HasSubstr("is a link"));
}

TEST_F(AccessTest, WritesReplaceAPlantedLinkInsteadOfFollowingIt) {
  const fs::path victim = dir_ / "victim";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, dir_ / "node-0.pid");
  ASSERT_TRUE(WriteNoFollow(dir_ / "node-0.pid", "123\n").ok());
  EXPECT_EQ(Slurp(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(dir_ / "node-0.pid"));
  EXPECT_EQ(Slurp(dir_ / "node-0.pid"), "123\n");
  // The runner's records of process groups: a link at its path is not truncated through.
  fs::create_directories(dir_ / "running");
  fs::create_symlink(victim, dir_ / "running" / "groups-1");
  {
    GroupRecordSlots slots;
    ASSERT_TRUE(slots.Open(dir_ / "running" / "groups-1").ok());
  }
  EXPECT_EQ(Slurp(victim), "precious\n");
  fs::create_symlink(victim, dir_ / "running" / "one");
  EXPECT_FALSE(WriteGroupRecord(dir_ / "running" / "one", {.pgid = 5, .start_ticks = 1, .boot_id = "b"}).ok());
  EXPECT_EQ(Slurp(victim), "precious\n");
}

// Finding 1: a record of process groups that others could have written (a
// file others can write, or a record without its boot and start time) makes
// a node kill nothing; the same group in a record of weft's own is killed.
TEST_F(AccessTest, ARecordOfGroupsOthersCouldWriteKillsNothing) {
  const ProcStat sleep = SleepGroup();
  ASSERT_GT(sleep.pid, 0);
  fs::create_directories(dir_ / "running");
  const GroupRecord exact{.pgid = sleep.pid, .start_ticks = sleep.start_ticks, .boot_id = BootId()};
  ASSERT_TRUE(WriteGroupRecord(dir_ / "running" / "planted", exact).ok());
  chmod((dir_ / "running" / "planted").c_str(), 0666);
  ASSERT_TRUE(WriteGroupRecord(dir_ / "running" / "no-boot", {.pgid = sleep.pid, .start_ticks = sleep.start_ticks}).ok());
  ASSERT_TRUE(WriteGroupRecord(dir_ / "running" / "no-start", {.pgid = sleep.pid, .boot_id = BootId()}).ok());
  TaskRunner::KillLeftovers(dir_);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(Alive(sleep.pid));
  // Nor from a running/ folder others can write, whatever its files say.
  fs::create_directories(dir_ / "running");
  ASSERT_TRUE(WriteGroupRecord(dir_ / "running" / "exact", exact).ok());
  chmod((dir_ / "running").c_str(), 0777);
  TaskRunner::KillLeftovers(dir_);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(Alive(sleep.pid));
  chmod((dir_ / "running").c_str(), 0700);
  TaskRunner::KillLeftovers(dir_);
  int status = 0;
  ASSERT_EQ(waitpid(sleep.pid, &status, 0), sleep.pid);
  children_.clear();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

// Finding 1: a cgroups record naming a group that is not this work dir's
// node group (here a decoy of the test's own making under the test's
// cgroup) makes the node neither kill its members nor remove it.
TEST_F(AccessTest, ARecordNamingAnotherCgroupKillsAndRemovesNothing) {
  // A cgroup2 decoy next to where a node would make its group.
  std::ifstream self("/proc/self/cgroup");
  std::string line, own;
  while (std::getline(self, line)) {
    if (line.starts_with("0::")) own = line.substr(3);
  }
  fs::path v2;
  for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    if (fs::exists(fs::path(mount) / "cgroup.procs") && !own.empty()) v2 = fs::path(mount) / fs::path(own).relative_path();
    if (!v2.empty()) break;
  }
  const fs::path decoy = v2 / fmt::format("weft-decoy-{}", getpid());
  if (v2.empty() || mkdir(decoy.c_str(), 0755) != 0) GTEST_SKIP() << "no writable cgroup2 hierarchy here";
  const ProcStat sleep = SleepGroup();
  std::ofstream(decoy / "cgroup.procs") << sleep.pid;
  fs::create_directories(dir_ / "work");
  std::ofstream(dir_ / "work" / "cgroups") << decoy.string() << "\n" << (decoy / ".." / fs::path(decoy).filename()).string() << "\n";
  TaskRunner::KillLeftovers(dir_ / "work");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(Alive(sleep.pid));
  EXPECT_TRUE(fs::exists(decoy));
  kill(sleep.pid, SIGKILL);
  waitpid(sleep.pid, nullptr, 0);
  children_.clear();
  for (int i = 0; i < 100 && rmdir(decoy.c_str()) != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

TEST_F(AccessTest, AUnixAddressHasATokenIndexEntry) {
  const std::string address = "unix:/home/u/.local/state/weft/cluster/scheduler/socket";
  const std::string name = EntryName(address);
  EXPECT_EQ(name.find('/'), std::string::npos);
  EXPECT_EQ(AddressOfEntry(name), address);
  EXPECT_EQ(AddressOfEntry(EntryName("unix:/a%2F/b")), "unix:/a%2F/b");
  EXPECT_EQ(AddressOfEntry(EntryName("127.0.0.1:7070")), "127.0.0.1:7070");
  setenv("XDG_STATE_HOME", (dir_ / "state").c_str(), 1);
  std::ofstream(dir_ / "token") << "abc\n";
  chmod((dir_ / "token").c_str(), 0600);
  ASSERT_TRUE(RememberToken(address, dir_ / "token").ok());
  EXPECT_EQ(TokenFileFor(address), (dir_ / "token").string());
  ForgetTokens(dir_ / "token");
  EXPECT_EQ(TokenFileFor(address), "");
  unsetenv("XDG_STATE_HOME");
}

TEST_F(AccessTest, AUnixSocketNeedsNoTlsAndHasNoPortToKeep) {
  EXPECT_TRUE(IsUnixAddress("unix:/x/socket"));
  EXPECT_FALSE(IsUnixAddress("127.0.0.1:0"));
  EXPECT_TRUE(CheckListenSecurity("unix:/x/socket", false, TlsConfig{}, false).ok());
  EXPECT_FALSE(CheckListenSecurity("10.0.0.1:7070", true, TlsConfig{}, false).ok());
  EXPECT_FALSE(AsksForAnyPort("unix:/x/a:0"));
}

// Finding 2 and 5: a socket is claimed under a lock: a dead daemon's stale
// socket is replaced, a live daemon's never; a folder others can write, a
// path too long for a socket, or a file that is not a socket is refused.
TEST_F(AccessTest, AUnixSocketIsClaimedOnceAndAStaleOneReplaced) {
  const fs::path socket = dir_ / "socket";
  absl::StatusOr<UnixListener> first = UnixListener::Claim("unix:" + socket.string());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->active());
  EXPECT_EQ(first->address(), "unix:" + socket.string());
  const absl::StatusOr<UnixListener> second = UnixListener::Claim("unix:" + socket.string());
  EXPECT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("a live scheduler already listens"));
  // The holder goes (as a killed daemon's lock does); its socket file stays behind.
  *first = UnixListener();
  std::ofstream(socket) << "";  // not a socket: never replaced
  EXPECT_THAT(std::string(UnixListener::Claim("unix:" + socket.string()).status().message()),
              HasSubstr("is not a socket"));
  fs::remove(socket);
  ASSERT_EQ(mknod(socket.c_str(), S_IFSOCK | 0600, 0), 0);  // a stale socket
  absl::StatusOr<UnixListener> again = UnixListener::Claim("unix:" + socket.string());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(fs::exists(socket));
  EXPECT_FALSE(UnixListener::Claim("unix:" + (dir_ / std::string(120, 'x')).string()).ok());
  fs::create_directories(dir_ / "open");
  chmod((dir_ / "open").c_str(), 01777);
  EXPECT_FALSE(UnixListener::Claim("unix:" + (dir_ / "open" / "socket").string()).ok());
  EXPECT_FALSE(UnixListener::Claim("127.0.0.1:0")->active());
}

// Stranger: a plain TCP listener on loopback that keeps what a client sends
// it for `ms` (as one that took a freed port would).
class Stranger {
 public:
  Stranger() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      timeval tv{.tv_sec = 1, .tv_usec = 0};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      // The server's side of an HTTP/2 preface (empty SETTINGS and its ACK), so a clear-text client goes on.
      const unsigned char settings[] = {0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0};
      [[maybe_unused]] ssize_t w = write(c, settings, sizeof settings);
      char buf[4096];
      for (ssize_t n; (n = read(c, buf, sizeof buf)) > 0;) got_.append(buf, static_cast<size_t>(n));
      close(c);
    });
  }
  ~Stranger() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  // What it received (after the connection ended).
  std::string Received() {
    shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    return got_;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string got_;
};

// CallStatus: a Status call with `token` to `address` through `tls`.
grpc::Status CallStatus(const std::string& address, const TlsConfig& tls, const std::string& token) {
  auto stub = v1::Scheduler::NewStub(grpc::CreateChannel(address, ChannelCredentials(tls)));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
  AddToken(context, token);
  v1::StatusReply reply;
  return stub->Status(&context, v1::StatusRequest(), &reply);
}

// Finding 2 over TCP: a cluster's own certificate is the one its clients
// trust; a client that trusts it sends a stranger on the port no token
// (its TLS handshake fails first), where a clear-text client does.
TEST_F(AccessTest, AClusterCertificateIsTrustedAloneAndItsClientsSendAStrangerNoToken) {
  const ClusterCertFiles own = ClusterCertIn(dir_ / "c");
  ASSERT_TRUE(EnsureClusterCert(own, "127.0.0.1").ok());
  EXPECT_EQ(fs::status(own.key).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  const std::string pem = Slurp(own.cert);
  ASSERT_TRUE(EnsureClusterCert(own, "127.0.0.1").ok());
  EXPECT_EQ(Slurp(own.cert), pem);  // kept
  const absl::StatusOr<TlsConfig> server = LoadServerTls({.cert = own.cert.string(), .key = own.key.string()});
  ASSERT_TRUE(server.ok()) << server.status();
  const absl::StatusOr<TlsConfig> client = LoadClientTls({.ca = own.cert.string()});
  ASSERT_TRUE(client.ok()) << client.status();
  const ClusterCertFiles other = ClusterCertIn(dir_ / "other");
  ASSERT_TRUE(EnsureClusterCert(other, "127.0.0.1").ok());
  const absl::StatusOr<TlsConfig> stranger_ca = LoadClientTls({.ca = other.cert.string()});
  ASSERT_TRUE(stranger_ca.ok());

  // The scheduler's side: a TLS port with the cluster's certificate (the
  // bare service: a call that gets through the handshake is UNIMPLEMENTED).
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", ServerCredentials(*server), &port);
  v1::Scheduler::Service unimplemented;
  builder.RegisterService(&unimplemented);
  std::unique_ptr<grpc::Server> listening = builder.BuildAndStart();
  ASSERT_NE(port, 0);
  const std::string address = fmt::format("127.0.0.1:{}", port);
  EXPECT_EQ(CallStatus(address, *client, "tok").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(CallStatus(address, *stranger_ca, "tok").error_code(), grpc::StatusCode::UNAVAILABLE);
  listening->Shutdown();

  const std::string token(64, 'c');
  {
    Stranger stranger;
    EXPECT_FALSE(CallStatus(fmt::format("127.0.0.1:{}", stranger.port()), *client, token).ok());
    const std::string got = stranger.Received();
    EXPECT_FALSE(got.empty());  // the client did connect: its TLS hello
    EXPECT_EQ(got.find(token), std::string::npos);
    EXPECT_EQ(got.find("authorization"), std::string::npos);
  }
  {
    // The same stranger gets a clear-text client's request headers: what TLS prevents
    // (gRPC may Huffman-code the token, but never the header's name).
    Stranger stranger;
    EXPECT_FALSE(CallStatus(fmt::format("127.0.0.1:{}", stranger.port()), TlsConfig{}, token).ok());
    EXPECT_NE(stranger.Received().find("authorization"), std::string::npos);
  }
}

// A cluster's certificate is kept across `up`s (what pinned it stays
// valid), but one made for another host would fail every handshake: an
// `up` for a host it does not name is refused rather than served.
TEST_F(AccessTest, AKeptClusterCertificateMustNameTheHost) {
  const ClusterCertFiles own = ClusterCertIn(dir_ / "c");
  ASSERT_TRUE(EnsureClusterCert(own, "10.0.0.7").ok());
  const std::string pem = Slurp(own.cert);
  EXPECT_TRUE(EnsureClusterCert(own, "127.0.0.1").ok());  // every one names loopback
  EXPECT_TRUE(EnsureClusterCert(own, "localhost").ok());
  EXPECT_TRUE(EnsureClusterCert(own, "10.0.0.7").ok());
  const absl::Status other = EnsureClusterCert(own, "10.0.0.8");
  EXPECT_TRUE(absl::IsInvalidArgument(other)) << other;
  EXPECT_THAT(std::string(other.message()), HasSubstr("does not name 10.0.0.8"));
  EXPECT_FALSE(EnsureClusterCert(own, "sched.example").ok());
  EXPECT_EQ(Slurp(own.cert), pem);  // never remade behind the pinning clients' backs
}

// Finding 2 without TLS: a token crosses TCP only inside TLS unless clear
// text is asked for. The scheduler will not take one in clear text, even on
// loopback, and a client does not even connect to a clear-text TCP address
// with its token: a stranger on the port sees nothing. A unix: socket (its
// folder proves the scheduler) and a loopback port without a token (no
// secret) need nothing.
TEST_F(AccessTest, ATokenCrossesTcpOnlyInsideTlsOrWhenClearTextIsAskedFor) {
  const TlsConfig clear;
  EXPECT_FALSE(CheckListenSecurity("127.0.0.1:0", /*has_token=*/true, clear, /*insecure=*/false).ok());
  EXPECT_FALSE(CheckListenSecurity("[::1]:7070", true, clear, false).ok());
  EXPECT_THAT(std::string(CheckListenSecurity("127.0.0.1:0", true, clear, false).message()), HasSubstr("--insecure"));
  EXPECT_TRUE(CheckListenSecurity("127.0.0.1:0", true, clear, /*insecure=*/true).ok());
  EXPECT_TRUE(CheckListenSecurity("127.0.0.1:0", /*has_token=*/false, clear, false).ok());
  EXPECT_TRUE(CheckListenSecurity("unix:/run/x/socket", true, clear, false).ok());
  EXPECT_FALSE(CheckListenSecurity("0.0.0.0:0", false, clear, true).ok());  // beyond loopback a token, always

  EXPECT_FALSE(CheckTokenDestination("127.0.0.1:7070", /*has_token=*/true, clear, /*insecure=*/false).ok());
  EXPECT_TRUE(CheckTokenDestination("127.0.0.1:7070", true, clear, /*insecure=*/true).ok());
  EXPECT_TRUE(CheckTokenDestination("127.0.0.1:7070", /*has_token=*/false, clear, false).ok());
  EXPECT_TRUE(CheckTokenDestination("unix:/run/x/socket", true, clear, false).ok());
  const ClusterCertFiles own = ClusterCertIn(dir_ / "c");
  ASSERT_TRUE(EnsureClusterCert(own, "127.0.0.1").ok());
  const absl::StatusOr<TlsConfig> tls = LoadClientTls({.ca = own.cert.string()});
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_TRUE(CheckTokenDestination("127.0.0.1:7070", true, *tls, false).ok());

  const std::string token(64, 'd');
  {
    Stranger stranger;
    SchedulerClient client(fmt::format("127.0.0.1:{}", stranger.port()), token);
    const absl::StatusOr<v1::StatusReply> reply = client.Nodes();
    EXPECT_TRUE(absl::IsFailedPrecondition(reply.status())) << reply.status();
    EXPECT_THAT(std::string(reply.status().message()), HasSubstr("--insecure"));
    EXPECT_EQ(stranger.Received(), "");  // not even a connection
  }
  {
    // Asked for, clear text goes as before (what --insecure gives up).
    Stranger stranger;
    SchedulerClient client(fmt::format("127.0.0.1:{}", stranger.port()), token, {}, /*insecure=*/true);
    EXPECT_FALSE(client.Nodes().ok());
    EXPECT_NE(stranger.Received().find("authorization"), std::string::npos);
  }
}

}  // namespace
}  // namespace weft::runtime
