// weft cluster up|down: a local cluster for trying weft for real.
//   weft cluster up --nodes N [--policy P] [--param k=v]... [--replicas K] [--dir DIR] [--plain-http]
//     starts `weftd scheduler` (K of them, replicas sharing the nodes, for a
//     decentralized policy) and N `weftd node`s in the background, their
//     state, logs and task output under DIR, waits until every node has
//     registered, and prints each scheduler's dashboard address (its live
//     page and /metrics, on loopback, over HTTPS with the cluster's own
//     certificate DIR/tls/cluster.pem unless --plain-http; as /login?token=,
//     which sets a cookie and leaves the token out of the address bar) and
//     the certificate to pin, and then the scheduler's address
//     (K: `a,b,...`) on the last line: unix:DIR/scheduler/socket, a Unix
//     socket in the cluster's private folder (issue 34, finding 2). DIR
//     defaults to $XDG_STATE_HOME/weft/cluster (~/.local/state/weft/cluster);
//     it is made 0700, and a DIR another user owns or can write, or with a
//     file weft reads that is not the user's own, is refused (finding 1).
//     The address is chosen once and kept in DIR: an `up` on a
//     dir whose daemons are partly dead (a crash, kill -9) starts only the
//     missing ones, the scheduler on its old address, with the same flags;
//     if that restart fails (its port taken) it exits with the scheduler's
//     error and leaves the rest running and the address in place;
//   weft cluster up --slurm N [--partition P] [--sbatch-arg A]... [--listen ADDR
//                   [--insecure | --tls-cert F --tls-key F --tls-ca F]] --dir DIR
//     the same with the N nodes started as one Slurm job (cli/slurm_nodes.h)
//     whose id is kept in DIR/slurm-job; a --listen address without TLS
//     files or --insecure gets TLS with the cluster's own certificate,
//     DIR/tls/cluster.pem, which the nodes and the owner's clients trust
//     alone (runtime/cluster_cert.h);
//   weft cluster down [--dir DIR]
//     cancels that job and waits for it to go, then stops the rest
//     (SIGTERM, then SIGKILL after 5 s) and kills any task a killed node
//     left behind, so no process outlives the cluster.
// Each daemon's pid is kept in DIR/NAME.pid (written without following a
// link); a pid is signalled only while /proc says it is still a weftd (pids
// get reused), and only from a DIR that is the user's own.
// Every daemon takes the cluster's token, DIR/token (mode 0600, made by the
// first `up`), and `up` records its addresses in the user's token index so
// that `weft submit|status|wait|cancel --scheduler ADDR` find it with no
// flag (runtime/local_tokens.h; docs/runtime.md, "Security model").
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <variant>

#include "cli/commands.h"
#include "cli/slurm_nodes.h"
#include "cli/slurm_up_flags.h"
#include "fmt/format.h"
#include "runtime/auth.h"
#include "runtime/client/scheduler_client.h"
#include "runtime/cluster_cert.h"
#include "runtime/local_tokens.h"
#include "runtime/node/task_runner.h"
#include "runtime/owned_files.h"
#include "runtime/tls.h"

namespace weft::cli {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStartTimeout = std::chrono::seconds(20);
constexpr auto kStopTimeout = std::chrono::seconds(5);

fs::path WeftdPath() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "weftd")) return self.parent_path() / "weftd";
  return "weftd";  // from PATH
}

// Spawn starts `args` in a session of its own with output to `log`; returns its pid.
pid_t Spawn(const std::vector<std::string>& args, const fs::path& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  setsid();
  int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  // A link in its place is not followed; the output then goes nowhere rather than into up's own.
  if (out < 0) out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out >= 0) {
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
  }
  if (in >= 0) dup2(in, STDIN_FILENO);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  _exit(127);
}

bool IsWeftd(pid_t pid) {
  std::ifstream cmdline(fmt::format("/proc/{}/cmdline", pid));
  std::string first;
  std::getline(cmdline, first, '\0');
  return fs::path(first).filename() == "weftd";
}

// Running: the process exists (and is reaped if it is our child and has exited).
bool Running(pid_t pid) {
  waitpid(pid, nullptr, WNOHANG);
  return pid > 0 && kill(pid, 0) == 0;
}

// Alive: a daemon from a pid file is still running and is still a weftd.
bool Alive(pid_t pid) { return Running(pid) && IsWeftd(pid); }

void WritePid(const fs::path& file, pid_t pid) { (void)runtime::WriteNoFollow(file, fmt::format("{}\n", pid), 0644); }

pid_t ReadPid(const fs::path& file) {
  pid_t pid = 0;
  std::ifstream(file) >> pid;
  return pid;
}

std::string LastLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

std::vector<fs::path> PidFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".pid") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Stop signals every daemon of DIR (nodes before the scheduler), waits, and
// kills what remains, then kills tasks a killed node left running. The
// daemons are those of DIR's NAME.pid files and those that recorded
// themselves in DIR/NAME/pid (a scheduler restarted by hand on its state).
void StopAll(const fs::path& dir) {
  StopSlurmNodes(dir);  // first: its nodes end their tasks while the scheduler is still there
  std::vector<fs::path> files = PidFiles(dir);
  std::error_code list_ec;
  for (const auto& e : fs::directory_iterator(dir, list_ec)) {
    if (e.is_directory() && fs::exists(e.path() / "pid")) files.push_back(e.path() / "pid");
  }
  auto daemon = [](const fs::path& f) { return f.filename() == "pid" ? f.parent_path().filename() : f.stem(); };
  std::stable_partition(files.begin(), files.end(),
                        [&](const fs::path& f) { return !daemon(f).string().starts_with("scheduler"); });
  for (const fs::path& f : files) {
    const pid_t pid = ReadPid(f);
    if (pid > 0 && Alive(pid)) kill(pid, SIGTERM);
  }
  const auto deadline = Clock::now() + kStopTimeout;
  for (const fs::path& f : files) {
    const pid_t pid = ReadPid(f);
    while (pid > 0 && Alive(pid) && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (pid > 0 && Alive(pid)) kill(pid, SIGKILL);
    std::error_code ec;
    fs::remove(f, ec);
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && e.path().filename().string().starts_with("node-")) {
      runtime::TaskRunner::KillLeftovers(e.path());
    }
  }
}

struct UpOptions {
  uint32_t nodes = 1;
  std::string policy;
  std::vector<std::string> params;
  std::string dir;
  double cpu = 0;
  double mem = 0;
  uint32_t replicas = 1;
  uint32_t rack_size = 0;  // 0: every node in rack 0
  bool slurm = false;      // the nodes as one Slurm job (--slurm N sets nodes = N)
  SlurmUpFlags slurm_flags;
  std::string retain;      // weftd scheduler --retain, passed through (empty: not given)
  std::string retain_age;  // weftd scheduler --retain-age
  bool plain_http = false; // the dashboard in clear text (no certificate): --plain-http
};

// DashboardTls: how the dashboard is served: HTTPS with `cert` and `key`
// (empty: the scheduler's own --tls-cert), whose certificate `ca` is the
// one to pin; or plain HTTP (`plain`), only when asked for.
struct DashboardTls {
  bool plain = false;
  std::string cert, key;
  std::string ca;
};

fs::path TokenPath(const fs::path& dir) { return dir / "token"; }
// The dashboard's own token: it reads the dashboard and nothing else, as it
// travels in a browser's URL to a TCP port (docs/runtime.md, "Security").
fs::path DashboardTokenPath(const fs::path& dir) { return dir / "dashboard-token"; }

// ClusterDir: --dir made absolute, or the default under the user's own
// state directory (never a shared one such as /tmp).
fs::path ClusterDir(const std::string& flag) {
  return flag.empty() ? runtime::StateHome() / "weft" / "cluster" : fs::absolute(flag);
}

// DirFlag: how to name the folder again on a command line.
std::string DirFlag(const std::string& flag) { return flag.empty() ? "" : " --dir " + flag; }

// CheckClusterFolder: DIR and what weft reads in it are the user's own and
// others cannot write them: its entries, each scheduler's state dir and
// each node's pid, records and log (a node's work dir is also its tasks'
// current directory: their files are theirs).
absl::Status CheckClusterFolder(const fs::path& dir) {
  if (absl::Status s = runtime::CheckOwned(dir, "cluster folder"); !s.ok()) return s;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    absl::Status s = runtime::CheckOwned(p, "a file in the cluster folder");
    std::error_code type_ec;
    if (s.ok() && entry.is_directory(type_ec) && !entry.is_symlink(type_ec)) {
      if (name.starts_with("scheduler")) {
        s = runtime::CheckOwnedTree(p, 1, "a scheduler's state dir", {"dashboard"});
      } else if (name == "tls") {
        s = runtime::CheckOwnedTree(p, 1, "the cluster's certificate folder");
      } else if (name.starts_with("node-")) {
        s = runtime::CheckOwnedNamed(p, runtime::kNodeFilesWeftReads, "a node's work dir");
      }
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string SchedulerName(const UpOptions& o, uint32_t replica) {
  return o.replicas == 1 ? "scheduler" : fmt::format("scheduler-{}", replica);
}

// StartScheduler starts scheduler daemon `replica` of o.replicas and returns
// its address, or an exit code when it did not start.
std::variant<std::string, int> StartScheduler(const UpOptions& o, const DashboardTls& dashboard, const fs::path& dir,
                                              uint32_t replica, Clock::time_point deadline) {
  const std::string name = SchedulerName(o, replica);
  // The address is chosen once (any free port) and kept in its state dir:
  // a scheduler started again listens where nodes and clients look for it.
  // So is the dashboard's (docs/runtime.md, "Dashboard and metrics").
  const std::string previous = LastLine(dir / name / "address");
  const std::string previous_http = LastLine(dir / name / "http-address");
  std::error_code ec;
  fs::remove(dir / name / "address", ec);
  const SlurmUpFlags& net = o.slurm_flags;  // empty without --slurm
  // A cluster on this machine listens on a Unix socket in its private
  // folder: no other user can take its address (a freed TCP port can be),
  // so the token is never sent to a stranger. Slurm's nodes on other
  // machines need --listen HOST:PORT (with TLS, or --insecure). Given TLS
  // files, the default stays a loopback port: its certificate names a host,
  // and clients that check it send their token to nobody else.
  const std::string fresh = !net.listen.empty()      ? net.listen
                            : !net.tls.cert.empty() ? "127.0.0.1:0"
                                                    : "unix:" + (dir / name / "socket").string();
  const std::string listen = !previous.empty() ? previous : fresh;
  std::vector<std::string> args = {WeftdPath().string(), "scheduler", "--listen", listen, "--state",
                                   (dir / name).string(), "--nodes", std::to_string(o.nodes), "--http",
                                   previous_http.empty() ? "127.0.0.1:0" : previous_http, "--token-file",
                                   TokenPath(dir).string(), "--http-token-file", DashboardTokenPath(dir).string()};
  if (o.replicas > 1) {
    args.insert(args.end(), {"--replica", std::to_string(replica), "--replicas", std::to_string(o.replicas)});
  }
  if (!o.policy.empty()) args.insert(args.end(), {"--policy", o.policy});
  // --insecure lets clear text through where there is no TLS: the gRPC port
  // with the Slurm flag, the dashboard with --plain-http.
  if (net.insecure || dashboard.plain) args.push_back("--insecure");
  if (!dashboard.cert.empty()) args.insert(args.end(), {"--http-tls-cert", dashboard.cert, "--http-tls-key", dashboard.key});
  if (!net.tls.cert.empty()) args.insert(args.end(), {"--tls-cert", net.tls.cert, "--tls-key", net.tls.key});
  for (const std::string& p : o.params) args.insert(args.end(), {"--param", p});
  if (!o.retain.empty()) args.insert(args.end(), {"--retain", o.retain});
  if (!o.retain_age.empty()) args.insert(args.end(), {"--retain-age", o.retain_age});
  const pid_t scheduler = Spawn(args, dir / (name + ".out"));
  WritePid(dir / (name + ".pid"), scheduler);
  while (true) {
    const std::string address = LastLine(dir / name / "address");
    if (!address.empty()) return address;
    if (!Running(scheduler) || Clock::now() > deadline) {
      const std::string why = LastLine(dir / (name + ".out"));
      std::cerr << "error: the scheduler did not start: " << (why.empty() ? "no output" : why) << "\n";
      if (previous.empty()) {
        StopAll(dir);  // a first start: nothing of the cluster was running before this up
      } else {
        // A restart that failed (its port taken, say) tears nothing down
        // (issue 34, finding 5): what still runs keeps running, and the
        // address stays where the nodes and clients look for the scheduler,
        // so the next up comes back there.
        if (Running(scheduler)) {
          kill(scheduler, SIGKILL);
          waitpid(scheduler, nullptr, 0);
        }
        fs::remove(dir / (name + ".pid"), ec);
        (void)runtime::WriteNoFollow(dir / name / "address", previous + "\n", 0644);
      }
      return why.find("weftd: ") != std::string::npos ? kExitBadInput : kExitFailure;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int Up(const UpOptions& given) {
  UpOptions o = given;
  const fs::path dir = ClusterDir(o.dir);
  // Only a folder of the user's own, with nothing planted in it by another
  // (issue 34, finding 1): its token, pid files and records steer the cluster.
  if (absl::Status s = runtime::MakePrivateDir(dir, "cluster folder"); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  if (absl::Status s = CheckClusterFolder(dir); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  // A TCP address without TLS files and without --insecure: TLS with the
  // cluster's own certificate, made once and kept in DIR/tls, which the
  // nodes and clients trust alone (runtime/cluster_cert.h).
  SlurmUpFlags& net = o.slurm_flags;
  std::string own_ca;  // the cluster's own certificate, for the token index
  if (!net.listen.empty() && !runtime::IsUnixAddress(net.listen) && net.tls.cert.empty() && !net.insecure) {
    const runtime::ClusterCertFiles own = runtime::ClusterCertIn(dir);
    if (absl::Status s = runtime::EnsureClusterCert(own, net.listen.substr(0, net.listen.rfind(':'))); !s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return kExitBadInput;
    }
    net.tls = {.ca = own.cert.string(), .cert = own.cert.string(), .key = own.key.string()};
    own_ca = own.cert.string();
  }
  // The dashboard: HTTPS with the scheduler's certificate when it has one,
  // else with the cluster's own (made once in DIR/tls, naming 127.0.0.1 and
  // localhost), so a browser or scraper can pin it; plain HTTP only when
  // asked (--plain-http), as its token then crosses TCP in clear text.
  DashboardTls dashboard{.plain = o.plain_http && net.tls.cert.empty()};  // a TLS scheduler lends it its own
  if (!dashboard.plain) {
    if (!net.tls.cert.empty()) {
      dashboard.ca = net.tls.ca;
    } else {
      const runtime::ClusterCertFiles own = runtime::ClusterCertIn(dir);
      if (absl::Status s = runtime::EnsureClusterCert(own, "127.0.0.1"); !s.ok()) {
        std::cerr << "error: " << s.message() << "\n";
        return kExitBadInput;
      }
      dashboard = {.cert = own.cert.string(), .key = own.key.string(), .ca = own.cert.string()};
    }
  }
  // The token is made once and kept: daemons still alive from an earlier up hold it.
  const absl::StatusOr<std::string> token = runtime::EnsureTokenFile(TokenPath(dir));
  if (!token.ok()) {
    std::cerr << "error: " << token.status().message() << "\n";
    return kExitBadInput;
  }
  const absl::StatusOr<std::string> dashboard_token = runtime::EnsureTokenFile(DashboardTokenPath(dir));
  if (!dashboard_token.ok()) {
    std::cerr << "error: " << dashboard_token.status().message() << "\n";
    return kExitBadInput;
  }
  // What this command's own client trusts (the scheduler checks its files itself).
  const absl::StatusOr<runtime::TlsConfig> tls = runtime::LoadClientTls({.ca = o.slurm_flags.tls.ca});
  if (!tls.ok()) {
    std::cerr << "error: " << tls.status().message() << "\n";
    return kExitBadInput;
  }
  // An up on a dir whose daemons are partly alive starts only what is
  // missing (a crashed scheduler comes back on its address; lost nodes
  // come back); with all of them alive there is nothing to do.
  auto alive = [&](const std::string& name) {
    return Alive(ReadPid(dir / (name + ".pid"))) || Alive(ReadPid(dir / name / "pid"));
  };
  bool all_alive = true;
  for (uint32_t r = 0; r < o.replicas; ++r) {
    all_alive &= alive(SchedulerName(o, r));
  }
  const std::string slurm_job = LastLine(SlurmJobFile(dir));
  if (o.slurm) {
    all_alive &= !slurm_job.empty() && !SlurmJobState(slurm_job).empty();
  } else {
    for (uint32_t i = 0; i < o.nodes; ++i) {
      all_alive &= alive(fmt::format("node-{}", i));
    }
  }
  if (all_alive) {
    std::cerr << fmt::format("error: a cluster is already running in {} (weft cluster down{})\n", dir.string(),
                             DirFlag(o.dir));
    return kExitBadInput;
  }
  auto deadline = Clock::now() + kStartTimeout;
  std::vector<std::string> addresses;
  for (uint32_t r = 0; r < o.replicas; ++r) {
    const std::string name = SchedulerName(o, r);
    if (alive(name)) {
      addresses.push_back(LastLine(dir / name / "address"));
      continue;
    }
    std::variant<std::string, int> started = StartScheduler(o, dashboard, dir, r, deadline);
    if (std::holds_alternative<int>(started)) return std::get<int>(started);  // StartScheduler cleaned up
    addresses.push_back(std::get<std::string>(started));
  }
  std::string address = addresses[0];
  for (size_t r = 1; r < addresses.size(); ++r) address += "," + addresses[r];
  const std::string weftd = WeftdPath().string();
  if (o.slurm && (slurm_job.empty() || SlurmJobState(slurm_job).empty())) {
    const absl::StatusOr<std::string> job = SubmitSlurmNodes({.nodes = o.nodes,
                                                              .weftd = weftd,
                                                              .scheduler = address,
                                                              .dir = dir.string(),
                                                              .tls_ca = o.slurm_flags.tls.ca,
                                                              .insecure = o.slurm_flags.insecure,
                                                              .partition = o.slurm_flags.partition,
                                                              .sbatch_args = o.slurm_flags.sbatch_args});
    if (!job.ok()) {
      std::cerr << "error: " << job.status().message() << "\n";
      StopAll(dir);  // the scheduler started for it
      return kExitBadInput;
    }
    (void)runtime::WriteNoFollow(SlurmJobFile(dir), *job + "\n", 0644);
  }
  for (uint32_t i = 0; i < o.nodes && !o.slurm; ++i) {
    const std::string name = fmt::format("node-{}", i);
    if (alive(name)) continue;
    std::vector<std::string> node = {weftd, "node", "--scheduler", address, "--name", name, "--work-dir",
                                     (dir / name).string(), "--token-file", TokenPath(dir).string()};
    if (o.cpu > 0) node.insert(node.end(), {"--cpu", fmt::format("{}", o.cpu)});
    if (o.mem > 0) node.insert(node.end(), {"--mem", fmt::format("{}", o.mem)});
    if (o.rack_size > 0) node.insert(node.end(), {"--rack", std::to_string(i / o.rack_size)});
    WritePid(dir / (name + ".pid"), Spawn(node, dir / (name + ".out")));
  }
  runtime::SchedulerClient client(address, *token, *tls, net.insecure);
  const std::string job = o.slurm ? LastLine(SlurmJobFile(dir)) : std::string();
  auto next_squeue = Clock::now();
  while (true) {
    absl::StatusOr<std::vector<v1::StatusReply>> replies = client.StatusAll();
    const bool ready = replies.ok() && replies->size() == o.replicas &&
                       std::all_of(replies->begin(), replies->end(), [&](const v1::StatusReply& r) {
                         return r.ready() && r.nodes_up() == o.nodes;
                       });
    if (ready) break;
    // A Slurm job may wait in the queue for as long as Slurm likes: the
    // nodes' time to register starts once it runs; one that ended is a failure.
    if (!job.empty() && Clock::now() >= next_squeue) {
      next_squeue = Clock::now() + std::chrono::milliseconds(500);
      const std::string state = SlurmJobState(job);
      if (state.empty() || state == "COMPLETING") {
        std::cerr << fmt::format("error: Slurm job {} of the nodes ended (see {}/slurm-{}.out)\n", job, dir.string(),
                                 job);
        StopAll(dir);
        return kExitFailure;
      }
      if (state == "PENDING" || state == "CONFIGURING") deadline = Clock::now() + kStartTimeout;
    }
    if (Clock::now() > deadline) {
      std::cerr << fmt::format("error: the nodes did not all register within {} s (see {}/node-*.out)\n",
                               kStartTimeout.count(), dir.string());
      StopAll(dir);
      return kExitFailure;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const std::string& a : addresses) {
    // (A CA of the user's own is theirs to give their clients: --tls-ca.)
    if (absl::Status s = runtime::RememberToken(a, TokenPath(dir), own_ca); !s.ok()) {
      std::cerr << fmt::format("warning: {}: clients need --token-file {}\n", std::string(s.message()),
                               TokenPath(dir).string());
    }
  }
  std::cout << fmt::format("cluster of {} nodes running in {}{}; stop it with: weft cluster down{}\n", o.nodes,
                           dir.string(), job.empty() ? "" : fmt::format(" (Slurm job {})", job), DirFlag(o.dir));
  for (uint32_t r = 0; r < o.replicas; ++r) {
    const std::string http = LastLine(dir / SchedulerName(o, r) / "http-address");
    // With the token, as a browser can send it: the page works as printed
    // (only its reader sees it); /login turns it into a cookie and drops it
    // from the address bar. The CA file is what to pin.
    if (!http.empty()) {
      std::cout << fmt::format("dashboard: {}://{}/login?token={} ({}Prometheus metrics: /metrics)\n",
                               dashboard.plain ? "http" : "https", http, *dashboard_token,
                               dashboard.plain ? "plain HTTP; " : fmt::format("certificate: {}; ", dashboard.ca));
    }
  }
  std::cout << address << "\n";  // last: scripts take it with tail -1 (FORMATS.md section 4)
  return kExitOk;
}

int Down(const std::string& dir_flag) {
  const fs::path dir = ClusterDir(dir_flag);
  // Its pid files and records say what to signal: only the user's own.
  if (absl::Status s = CheckClusterFolder(dir); !s.ok() && fs::exists(dir)) {
    std::cerr << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  if (PidFiles(dir).empty()) {
    std::cerr << fmt::format("error: no cluster in {} (no .pid files)\n", dir.string());
    return kExitBadInput;
  }
  StopAll(dir);
  runtime::ForgetTokens(TokenPath(dir));
  std::cout << fmt::format("cluster in {} stopped\n", dir.string());
  return kExitOk;
}

}  // namespace

void AddClusterCommand(CLI::App& app, CommandRun& run) {
  CLI::App* cluster = app.add_subcommand("cluster", "Start or stop a local cluster (scheduler + nodes)");
  cluster->require_subcommand(1);
  auto up = std::make_shared<UpOptions>();
  CLI::App* cmd = cluster->add_subcommand("up", "Start a scheduler and N nodes here; prints the scheduler address last");
  CLI::Option* nodes = cmd->add_option("--nodes", up->nodes, "Number of nodes")->check(CLI::Range(1, 64));
  cmd->add_option("--policy", up->policy, "Scheduling policy (default fifo)");
  cmd->add_option("--param", up->params, "Policy parameter k=v (repeatable)");
  cmd->add_option("--dir", up->dir,
                  "Directory for state, logs and task output, private to you (default: $XDG_STATE_HOME/weft/cluster, "
                  "else ~/.local/state/weft/cluster)");
  cmd->add_option("--retain", up->retain,
                  "Keep at most N ended jobs in the scheduler (weftd scheduler --retain; default: all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  cmd->add_option("--retain-age", up->retain_age,
                  "Compact ended jobs older than S seconds (weftd scheduler --retain-age)")
      ->check(CLI::Range(1.0, 1e9));
  CLI::Option* cpu =
      cmd->add_option("--cpu", up->cpu, "Cores each node offers (default: all)")->check(CLI::Range(0.0, 1e5));
  CLI::Option* mem =
      cmd->add_option("--mem", up->mem, "GB each node offers (default: all)")->check(CLI::Range(0.0, 1e7));
  cmd->add_option("--replicas", up->replicas,
                  "Scheduler daemons sharing the nodes as replicas (sparrow*); the last line lists every address")
      ->capture_default_str()->check(CLI::Range(1, 16));
  CLI::Option* rack_size = cmd->add_option("--rack-size", up->rack_size,
                                           "Nodes per rack: node-i runs with --rack i/K (default: all in rack 0)")
                               ->check(CLI::Range(1, 64));
  CLI::Option* plain_http =
      cmd->add_flag("--plain-http", up->plain_http,
                    "Serve the dashboard in plain HTTP instead of HTTPS with the cluster's certificate: its token "
                    "then crosses loopback TCP in clear text (docs/runtime.md, \"Security\")");
  CLI::Option* slurm = AddSlurmUpFlags(cmd, up->nodes, up->slurm_flags)->excludes(nodes, cpu, mem, rack_size);
  if (CLI::Option* cert = cmd->get_option_no_throw("--tls-cert")) plain_http->excludes(cert);
  nodes->excludes(slurm);
  cmd->callback([&run, up, nodes, slurm] {
    if (nodes->count() + slurm->count() == 0) throw CLI::RequiredError("--nodes or --slurm");
    up->slurm = slurm->count() > 0;
    run = [up] { return Up(*up); };
  });
  auto dir = std::make_shared<std::string>();
  CLI::App* down = cluster->add_subcommand("down", "Stop the cluster in DIR and every task it runs");
  down->add_option("--dir", *dir, "The directory given to cluster up (default: cluster up's)");
  down->callback([&run, dir] { run = [dir] { return Down(*dir); }; });
}

}  // namespace weft::cli
