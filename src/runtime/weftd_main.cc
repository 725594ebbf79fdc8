// weftd: the real runtime's daemons (docs/runtime.md, FORMATS.md §4).
//   weftd scheduler [--listen ADDR (HOST:PORT or unix:PATH)] [--policy P] [--param k=v]... [--state DIR] [--nodes N]
//                   [--replica I --replicas K] [--tls-cert F --tls-key F [--tls-ca F]] [--insecure]
//                   [--http ADDR [--http-tls-cert F --http-tls-key F]]
//   weftd node --scheduler ADDR[,ADDR] [--name N] [--cpu C] [--mem GB] [--work-dir DIR]
//              [--tls-ca F [--tls-cert F --tls-key F]] [--insecure]
// A token crosses TCP only inside TLS unless --insecure says otherwise, on
// either side (runtime/tls.h; docs/runtime.md, "Security").
// Both take --umask OCTAL (default 077): what the daemon creates (journal,
// logs, task output, and what its tasks create) is private to its user
// unless told otherwise (issue 34, finding 7).
// A policy written in Python (--policy py:MODULE:CLASS) runs in an
// interpreter started for it alone (python/embedded_policy.h); without one,
// weftd never starts Python.
// Exit codes: 0 after a clean stop (SIGTERM/SIGINT), 2 bad input (flags, an
// unsafe listen address, a bad TLS file, a state dir of another policy), 1
// internal error.
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <tuple>

#include "CLI/CLI.hpp"
#include "absl/strings/str_replace.h"
#include "core/status.h"
#include "fmt/format.h"
#include "grpc/support/log.h"
#include "grpcpp/grpcpp.h"
#ifdef WEFT_EMBED_PYTHON
#include "python/embedded_policy.h"
#endif
#include "runtime/auth.h"
#include "runtime/kept_address.h"
#include "runtime/node/data_address.h"
#include "runtime/node/node_daemon.h"
#include "runtime/owned_files.h"
#include "runtime/scheduler/scheduler_core.h"
#include "runtime/scheduler/dashboard_server.h"
#include "runtime/scheduler/live_dashboard.h"
#include "runtime/scheduler/service.h"
#include "runtime/tls.h"
#include "runtime/tls_flags.h"
#include "runtime/unix_listener.h"
#include "runtime/wire.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/spdlog.h"

namespace weft::runtime {
namespace {

constexpr int kMaxMessageBytes = 64 << 20;

int Fail(int code, std::string_view message) {
  std::fprintf(stderr, "weftd: %.*s\n", static_cast<int>(message.size()), message.data());
  return code;
}

int ExitCodeOf(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument || s.code() == absl::StatusCode::kFailedPrecondition ? 2 : 1;
}

// LogTo makes `file` the log; a file that cannot be opened (a read-only dir,
// a directory in its place) is one line and exit 2, not spdlog's exception.
absl::Status LogTo(const std::filesystem::path& file) {
  try {
    auto logger = spdlog::basic_logger_mt("weftd", file.string());
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
  } catch (const spdlog::spdlog_ex& e) {
    return absl::FailedPreconditionError(fmt::format("cannot open log file {}: {}", file.string(), e.what()));
  }
  return absl::OkStatus();
}

// WritePidFile records this daemon's pid in DIR/pid, so that `weft cluster
// down` finds a daemon however it was started (also by hand, after a crash).
// Written without following a link planted in its place (issue 34, finding 1).
absl::Status WritePidFile(const std::filesystem::path& dir) {
  if (absl::Status s = WriteNoFollow(dir / "pid", fmt::format("{}\n", getpid()), 0644); !s.ok()) {
    return absl::FailedPreconditionError(s.message());
  }
  return absl::OkStatus();
}

// WriteAddress publishes the address in state_dir/address: written whole then
// renamed, so `weft cluster up` never reads half of it.
// (The dashboard's, with --http, goes to state_dir/http-address the same way.)
absl::Status WriteAddress(const std::filesystem::path& state_dir, const std::string& address,
                          const std::string& file = "address") {
  if (absl::Status s = WriteNoFollow(state_dir / file, address + "\n", 0644); !s.ok()) {
    return absl::FailedPreconditionError(s.message());
  }
  return absl::OkStatus();
}

// OwnStateDir creates the state dir (private under the daemon's umask) and
// checks that it and what is in it are this user's own and others cannot
// write them (issue 34, finding 1): a folder another user made could hold a
// planted pid file or journal.
absl::Status OwnStateDir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError(fmt::format("cannot create state dir {}: {}", dir.string(), ec.message()));
  return CheckOwnedTree(dir, 1, "state dir", {"dashboard"});
}

// gRPC's own log lines (a client's failed TLS handshake, say) go to the
// daemon's log rather than to a stderr nobody reads.
void GrpcLogsToSpdlog() {
  gpr_set_log_function([](gpr_log_func_args* args) {
    const auto level = args->severity == GPR_LOG_SEVERITY_ERROR ? spdlog::level::warn : spdlog::level::debug;
    spdlog::log(level, "grpc: {}", args->message);
  });
}

// Stop requests: a flag and an eventfd, set from the signal handler.
std::atomic<bool> g_stop{false};
int g_stop_fd = -1;
void OnSignal(int) {
  g_stop = true;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(g_stop_fd, &one, sizeof one);
}
void InstallStopHandler() {
  g_stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}
void WaitForStop() {
  while (!g_stop) {
    uint64_t v;
    if (read(g_stop_fd, &v, sizeof v) < 0) usleep(50'000);
  }
}

absl::StatusOr<std::string> TokenFrom(const std::string& token_file) {
  if (token_file.empty()) return std::string();
  return ReadTokenFile(token_file);
}

// Listening: what the scheduler's listeners (gRPC, dashboard) are secured with.
struct Listening {
  std::string token_file;
  std::string http_token_file;  // the dashboard's own token (default: token_file's)
  TlsFiles tls;
  TlsFiles http_tls;  // the dashboard's own certificate (default: tls's)
  bool insecure = false;  // --insecure: clear text with a token, or beyond loopback, on purpose
};

int RunScheduler(const std::string& listen, const SchedulerConfig& config, const Listening& security,
                 const std::string& http);

// RunSchedulerWithPolicy: RunScheduler, in an interpreter when the policy is
// written in Python (py:MODULE:CLASS); the interpreter outlives the scheduler
// core and its policy objects, and is gone when this returns.
int RunSchedulerWithPolicy(const std::string& listen, const SchedulerConfig& config, const Listening& security,
                           const std::string& http) {
  if (!config.policy.starts_with("py:")) return RunScheduler(listen, config, security, http);
#ifdef WEFT_EMBED_PYTHON
  // A policy's error during the run goes to the log (set by RunScheduler before the run starts).
  auto python = weft::python::EmbeddedPython::Start(config.policy, [](const std::string& error) {
    spdlog::error("{}", error);
  });
  if (!python.ok()) return Fail(2, StatusMessage(python.status()));
  return RunScheduler(listen, config, security, http);
#else
  return Fail(2, fmt::format("--policy {}: this weftd was built without Python (configure with -DWEFT_PYTHON=ON)",
                             config.policy));
#endif
}

int RunScheduler(const std::string& listen, const SchedulerConfig& config, const Listening& security,
                 const std::string& http) {
  absl::StatusOr<std::string> token = TokenFrom(security.token_file);
  if (!token.ok()) return Fail(2, StatusMessage(token.status()));
  // The dashboard may take a token of its own, which reads it and nothing
  // else: it travels in a browser's URL to a TCP port (docs/runtime.md, "Security").
  absl::StatusOr<std::string> http_token =
      security.http_token_file.empty() ? token : TokenFrom(security.http_token_file);
  if (!http_token.ok()) return Fail(2, StatusMessage(http_token.status()));
  absl::StatusOr<TlsConfig> tls = LoadServerTls(security.tls);
  if (!tls.ok()) return Fail(2, StatusMessage(tls.status()));
  // The dashboard's HTTPS: its own certificate when given (a scheduler on a
  // Unix socket has no TLS of its own to lend it), else the gRPC port's.
  if (security.http_tls.any() && http.empty()) return Fail(2, "--http-tls-cert and --http-tls-key need --http");
  absl::StatusOr<TlsConfig> http_tls = security.http_tls.any() ? LoadServerTls(security.http_tls) : tls;
  if (!http_tls.ok()) {
    return Fail(2, absl::StrReplaceAll(std::string(StatusMessage(http_tls.status())), {{"--tls-", "--http-tls-"}}));
  }
  for (const auto& [address, secret, secured] :
       {std::tuple{listen, *token, &*tls}, std::tuple{http, *http_token, &*http_tls}}) {
    if (address.empty()) continue;
    if (absl::Status s = CheckListenSecurity(address, !secret.empty(), *secured, security.insecure); !s.ok()) {
      return Fail(2, StatusMessage(s));
    }
  }
  if (!http.empty() && IsUnixAddress(http)) return Fail(2, "--http takes HOST:PORT (a browser cannot open unix:PATH)");
  if (absl::Status s = OwnStateDir(config.state_dir); !s.ok()) return Fail(2, StatusMessage(s));
  // A Unix socket is held by a lock next to it while the daemon lives: a
  // stale socket of a dead scheduler is replaced, a live one never stolen.
  absl::StatusOr<UnixListener> unix_listener = UnixListener::Claim(listen);
  if (!unix_listener.ok()) return Fail(2, StatusMessage(unix_listener.status()));
  InstallStopHandler();
  if (absl::Status s = LogTo(config.state_dir / "scheduler.log"); !s.ok()) return Fail(2, StatusMessage(s));
  GrpcLogsToSpdlog();
  if (absl::Status s = WritePidFile(config.state_dir); !s.ok()) return Fail(2, StatusMessage(s));
  absl::StatusOr<std::unique_ptr<SchedulerCore>> core = SchedulerCore::Open(config);
  if (!core.ok()) return Fail(ExitCodeOf(core.status()), StatusMessage(core.status()));
  SchedulerService service(**core, *token);
  // A port the system chose at the first start is kept: a restart with the
  // same command line listens there again, or not at all (never elsewhere,
  // where nobody would look for it).
  const std::filesystem::path kept_listen = config.state_dir / "listen";
  const std::string bind = unix_listener->active() ? unix_listener->address() : ListenAddress(listen, kept_listen);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(bind, ServerCredentials(*tls), &port);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || (port == 0 && !unix_listener->active())) {  // a socket file has no port to report
    return Fail(2, fmt::format("cannot listen on {}{}{}", bind, tls->enabled() ? " with TLS" : "",
                               bind == listen || unix_listener->active() ? "" : fmt::format(" (the port chosen for {} at the first start, kept "
                                                                 "in {})", listen, kept_listen.string())));
  }
  const std::string host = bind.substr(0, bind.rfind(':'));
  const std::string address = unix_listener->active() ? bind : fmt::format("{}:{}", host, port);
  if (absl::Status s = KeepAddress(listen, address, kept_listen); !s.ok()) {
    server->Shutdown();
    return Fail(2, StatusMessage(s));
  }
  // The dashboard and /metrics (docs/runtime.md, "Dashboard and metrics"),
  // published before the gRPC address, which `weft cluster up` waits for.
  std::unique_ptr<LiveDashboard> dashboard;
  std::unique_ptr<DashboardServer> http_server;
  if (!http.empty()) {
    dashboard = std::make_unique<LiveDashboard>(**core, config.state_dir / "dashboard");
    SchedulerCore& c = **core;
    const std::filesystem::path kept_http = config.state_dir / "http-listen";
    const std::string http_bind = ListenAddress(http, kept_http);
    auto started = DashboardServer::Start(http_bind, *http_token,
                                          {.metrics = [&c, &d = *dashboard] {
                                             c.RefreshMetrics();
                                             return c.metrics().Exposition() + d.MetricsText();
                                           },
                                           .page = [&d = *dashboard](int refresh) { return d.Page(refresh); },
                                           .jobs_json = [&d = *dashboard] { return d.JobsJson(); },
                                           .nodes_json = [&d = *dashboard] { return d.NodesJson(); }},
                                          *http_tls);
    if (!started.ok()) {
      server->Shutdown();
      return Fail(2, StatusMessage(started.status()));
    }
    http_server = std::move(*started);
    if (absl::Status s = KeepAddress(http, http_server->address(), kept_http); !s.ok()) {
      server->Shutdown();
      return Fail(2, StatusMessage(s));
    }
    if (absl::Status s = WriteAddress(config.state_dir, http_server->address(), "http-address"); !s.ok()) {
      server->Shutdown();
      return Fail(2, StatusMessage(s));
    }
    spdlog::info("dashboard on {}://{}/ (metrics at /metrics)", http_tls->enabled() ? "https" : "http",
                 http_server->address());
  }
  if (absl::Status s = WriteAddress(config.state_dir, address); !s.ok()) {
    server->Shutdown();
    return Fail(2, StatusMessage(s));
  }
  spdlog::info("listening on {} (policy {}, {} nodes)", address, (*core)->Status({}).policy(), config.nodes);
  if (!unix_listener->active() && !tls->enabled() && !token->empty()) {  // --insecure: said out loud
    spdlog::warn("clear text with a token on TCP {} (--insecure): after a crash, any local user who takes the port "
                 "receives the token that nodes and clients keep sending (docs/runtime.md, \"Security\")", address);
  }
  std::printf("weftd scheduler listening on %s, state in %s\n", address.c_str(), config.state_dir.c_str());
  std::fflush(stdout);
  std::thread clock([&] { (*core)->RunClock(); });
  WaitForStop();
  spdlog::info("stopping");
  http_server.reset();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  (*core)->Stop();
  clock.join();
  return 0;
}

// ParseUmask: an octal mode mask of at most 0777 ("077", "0022"), or nothing.
std::optional<mode_t> ParseUmask(const std::string& text) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("01234567") != std::string::npos) return std::nullopt;
  const auto mask = static_cast<mode_t>(std::stoul(text, nullptr, 8));
  if (mask > 0777) return std::nullopt;
  return mask;
}

int RunNodeDaemon(NodeConfig config, const std::string& schedulers, double cpu, double mem, double disk, double net,
                  const std::string& token_file, const TlsFiles& tls_files, bool insecure) {
  absl::StatusOr<std::string> token = TokenFrom(token_file);
  if (!token.ok()) return Fail(2, StatusMessage(token.status()));
  config.token = *token;
  absl::StatusOr<TlsConfig> tls = LoadClientTls(tls_files);
  if (!tls.ok()) return Fail(2, StatusMessage(tls.status()));
  config.tls = std::move(*tls);
  config.schedulers = SplitAddresses(schedulers);
  if (config.schedulers.empty()) return Fail(2, "--scheduler needs an address");
  // A node sends its token on every call while it tries to reconnect: only
  // to addresses where the listener is proved to be the scheduler.
  for (const std::string& address : config.schedulers) {
    if (absl::Status s = CheckTokenDestination(address, !config.token.empty(), config.tls, insecure); !s.ok()) {
      return Fail(2, StatusMessage(s));
    }
  }
  if (cpu <= 0) cpu = std::thread::hardware_concurrency();
  if (mem <= 0) mem = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e9;
  absl::StatusOr<Resources> capacity = Resources::FromUnits({cpu, mem, disk, net});
  if (!capacity.ok()) return Fail(2, fmt::format("bad capacity: {}", StatusMessage(capacity.status())));
  config.capacity = *capacity;
  if (config.name.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    config.name = host;
  }
  if (config.work_dir.empty()) config.work_dir = std::filesystem::path("weft-node-" + config.name);
  // Its records of process groups and cgroups (running/, cgroups) say what to kill: only the user's own.
  std::error_code ec;
  std::filesystem::create_directories(config.work_dir, ec);
  if (ec) return Fail(2, fmt::format("cannot create work dir {}: {}", config.work_dir.string(), ec.message()));
  if (absl::Status s = CheckOwnedNamed(config.work_dir, kNodeFilesWeftReads, "work dir"); !s.ok()) {
    return Fail(2, StatusMessage(s));
  }
  InstallStopHandler();
  if (absl::Status s = LogTo(config.work_dir / "node.log"); !s.ok()) return Fail(2, StatusMessage(s));
  GrpcLogsToSpdlog();
  if (absl::Status s = WritePidFile(config.work_dir); !s.ok()) return Fail(2, StatusMessage(s));
  spdlog::info("node {} (rack {}) with {} serving {}", config.name, config.rack, config.capacity.ToString(), schedulers);
  return RunNode(config, g_stop, g_stop_fd);
}

}  // namespace
}  // namespace weft::runtime

int main(int argc, char** argv) {
  using namespace weft::runtime;
  CLI::App app{"weftd: weft's scheduler and node daemons"};
  app.require_subcommand(1);

  SchedulerConfig sched;
  std::string listen = "127.0.0.1:7070";
  Listening listening;
  double heartbeat_s = 0.5, timeout_s = 5;
  auto* s = app.add_subcommand("scheduler", "run the scheduler (policy, journal, gRPC API)");
  s->add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port), or unix:PATH for a Unix socket")->capture_default_str();
  s->add_option("--policy", sched.policy,
                "scheduling policy (weft policies), or py:MODULE:CLASS for one written in Python (found on "
                "PYTHONPATH); default: the state dir's, else fifo");
  s->add_option("--param", sched.params, "policy parameter k=v (repeatable)");
  sched.state_dir = "weft-state";
  s->add_option("--state", sched.state_dir, "state dir: journal, logs, address (keep it: restarts resume from it)")
      ->capture_default_str();
  s->add_option("--nodes", sched.nodes, "how many nodes the cluster has")->capture_default_str()->check(CLI::Range(1, 100000));
  s->add_option("--max-attempts", sched.max_attempts, "failed attempts before a job fails")->capture_default_str()->check(CLI::Range(1, 255));
  s->add_option("--heartbeat", heartbeat_s, "seconds between node heartbeats")->capture_default_str()->check(CLI::Range(0.01, 60.0));
  s->add_option("--node-timeout", timeout_s, "seconds of silence before a node is lost")->capture_default_str()->check(CLI::Range(0.05, 3600.0));
  s->add_option("--token-file", listening.token_file, "shared token clients and nodes must present");
  s->add_option("--http-token-file", listening.http_token_file,
                "the token --http wants instead of --token-file's: it reads the dashboard and /metrics only");
  AddTlsFlags(s, listening.tls, TlsSide::kServer);
  s->add_flag("--insecure", listening.insecure,
              "allow clear text (without --tls-cert) on a TCP --listen or --http that takes a token, or beyond "
              "loopback: a trusted network only");
  std::string http;
  s->add_option("--http", http,
                "HOST:PORT for the live dashboard (/) and Prometheus /metrics (port 0: any free port); "
                "off by default; with a token, or beyond loopback, it needs HTTPS (--tls-cert or --http-tls-cert) "
                "or --insecure");
  s->add_option("--http-tls-cert", listening.http_tls.cert,
                "PEM certificate of the --http listener (HTTPS), when it is not --tls-cert's (with --http-tls-key)");
  s->add_option("--http-tls-key", listening.http_tls.key, "PEM private key of --http-tls-cert");
  s->add_option("--replica", sched.replica.index, "this daemon's number among --replicas (0-based)")
      ->capture_default_str();
  s->add_option("--replicas", sched.replica.count,
                "scheduler daemons sharing the nodes as replicas of one decentralized scheduler (sparrow*)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  s->add_option("--max-tasks", sched.max_tasks_in_flight,
                "most tasks of unfinished jobs the scheduler holds; a submission beyond it is refused")
      ->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  uint64_t max_job_mb = sched.max_job_bytes >> 20;
  s->add_option("--max-job-mb", max_job_mb,
                "most MiB of job descriptions (JSON) of unfinished jobs; a submission beyond it is refused")
      ->capture_default_str()->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  // Retention (issue 20): unset, every ended job is kept (in memory and the journal).
  uint64_t retain = 0;
  double retain_age_s = 0;
  CLI::Option* retain_opt = s->add_option(
      "--retain", retain,
      "keep at most N ended jobs; older ones are compacted out of memory and the journal, their results kept "
      "in the state dir's results archive for export (default: keep all)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  s->add_option("--retain-age", retain_age_s,
                "compact ended jobs that ended more than S seconds ago, as --retain does (default: no age limit)")
      ->check(CLI::Range(1.0, 1e9));
  std::string sync = "normal";
  s->add_option("--sync", sync, "journal durability: normal (survives kill -9) or full (also power loss; an fsync per commit)")
      ->capture_default_str()->check(CLI::IsMember({"normal", "full"}));

  // The file mode mask, for both daemons.
  std::string umask_text = "077";
  const std::string umask_help =
      "file mode mask (octal) for what the daemon and its tasks create; the default keeps them to the owner";
  s->add_option("--umask", umask_text, umask_help)->capture_default_str();

  NodeConfig node;
  std::string schedulers;
  double cpu = 0, mem = 0, disk = 1000, net = 1000;
  std::string node_token_file;
  auto* n = app.add_subcommand("node", "run a node daemon (runs tasks as child processes)");
  n->add_option("--scheduler", schedulers,
                "scheduler address(es), HOST:PORT or unix:PATH, comma-separated: one scheduler's (failover) or its "
                "replicas' (all served)")
      ->required();
  n->add_option("--name", node.name, "node name (default: host name)");
  n->add_option("--cpu", cpu, "cores to offer (default: all)")->check(CLI::Range(0.0, 1e5));
  n->add_option("--mem", mem, "memory to offer in GB (default: all)")->check(CLI::Range(0.0, 1e7));
  n->add_option("--disk", disk, "disk bandwidth to offer, MB/s")->capture_default_str()->check(CLI::Range(0.0, 1e7));
  n->add_option("--net", net, "network bandwidth to offer, MB/s")->capture_default_str()->check(CLI::Range(0.0, 1e7));
  n->add_option("--rack", node.rack, "the node's rack (locality; racks in the policy's cluster)")
      ->capture_default_str()->check(CLI::Range(0, 65535));
  n->add_option("--work-dir", node.work_dir, "where task output and the node log go");
  n->add_flag("--no-cgroups", node.no_cgroups, "track tasks by process group only, as where no cgroup is writable");
  n->add_option("--data-listen", node.data_host,
                "the numeric address of the node's data port (default: the one that reaches the scheduler)")
      ->check([](const std::string& host) { return IsNumericHost(host) ? "" : "not a numeric IP address"; });
  n->add_option("--token-file", node_token_file, "the scheduler's shared token");
  TlsFiles node_tls;
  AddTlsFlags(n, node_tls, TlsSide::kClient);
  n->add_option("--umask", umask_text, umask_help)->capture_default_str();
  bool node_insecure = false;
  n->add_flag("--insecure", node_insecure,
              "send the token to a TCP --scheduler without TLS (whoever took its port after a crash would get it)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "weftd: %s\n", e.what());
    return 2;
  }
  // Private by default: set before anything is created (the state dir, the
  // log, the journal; a node's work dir and its tasks' files).
  const std::optional<mode_t> mask = ParseUmask(umask_text);
  if (!mask) {
    std::fprintf(stderr, "weftd: --umask: %s is not an octal mode mask (e.g. 077 or 022)\n", umask_text.c_str());
    return 2;
  }
  umask(*mask);
  if (s->parsed()) {
    sched.heartbeat_us = static_cast<weft::TimeUs>(heartbeat_s * 1e6);
    sched.node_timeout_us = static_cast<weft::TimeUs>(timeout_s * 1e6);
    sched.sync = sync == "full" ? JournalSync::kFull : JournalSync::kNormal;
    sched.max_job_bytes = max_job_mb << 20;
    if (retain_opt->count() > 0) sched.retain_jobs = retain;
    sched.retain_age_us = static_cast<weft::TimeUs>(retain_age_s * 1e6);
    return RunSchedulerWithPolicy(listen, sched, listening, http);
  }
  return RunNodeDaemon(node, schedulers, cpu, mem, disk, net, node_token_file, node_tls, node_insecure);
}
