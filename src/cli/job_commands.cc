// The commands that use a running scheduler (FORMATS.md §4):
//   weft submit --scheduler ADDR WORKLOAD   prints one job id per line; exit 75 when it may be run
//                                           again (nothing new accepted, or a broken connection: then
//                                           with --idempotency-key KEY, as its message says)
//   weft submit --scheduler ADDR --wrap CMD [--cpu C --mem G --tasks N --name NAME]
//   weft status --scheduler ADDR [JOB] [--out DIR]
//   weft wait   --scheduler ADDR JOB [--timeout S]   exit 0 succeeded, 1 failed or cancelled, 3 timed out
//   weft cancel --scheduler ADDR JOB
//   weft nodes  --scheduler ADDR         one line per node: state, capacity, reserved, used
// ADDR is `a,b,...`: one scheduler's addresses, or its replicas' (SchedulerClient);
// without --scheduler, $WEFT_SCHEDULER or the one local cluster (runtime_flags.h).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string.h>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/runtime_flags.h"
#include "fmt/format.h"
#include "model/names.h"
#include "nlohmann/json.hpp"
#include "runtime/client/export_results.h"
#include "runtime/client/failover.h"

namespace weft::cli {

namespace {

constexpr int kExitTimedOut = 3;
// A submission refused for now (the scheduler's journal failing, its cluster
// incomplete, the scheduler unreachable or its connection broken): nothing
// new was accepted, or the message names the key to submit again with.
// sysexits.h's EX_TEMPFAIL, so scripts can tell it from a failure (1) and
// bad input (2).
constexpr int kExitTryAgain = 75;

// NewSubmissionKey: a fresh idempotency key (128 random bits, hex).
std::string NewSubmissionKey() {
  std::random_device random;
  std::string key;
  for (int i = 0; i < 4; ++i) key += fmt::format("{:08x}", static_cast<uint32_t>(random()));
  return key;
}

// MessageForDisplay: a scheduler's message on one terminal line: control
// characters escaped as EscapeForDisplay does, quotes kept (it is not
// quoted here).
std::string MessageForDisplay(std::string_view s) {
  std::string out;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != '"' && s[i] != '\\') continue;
    out += EscapeForDisplay(s.substr(begin, i - begin));
    if (i < s.size()) out += s[i];
    begin = i + 1;
  }
  return out;
}

// ReadSubmission: the file's text, read up to the most a scheduler accepts
// (so `weft submit /dev/zero` ends); nullopt after a one-line error.
std::optional<std::string> ReadSubmission(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("error: {}: cannot read\n", path);
    return std::nullopt;
  }
  std::string text;
  constexpr size_t kChunk = size_t{1} << 20;
  while (in && text.size() <= runtime::kMaxSubmissionBytes) {
    const size_t had = text.size();
    text.resize(had + kChunk);
    in.read(text.data() + had, static_cast<std::streamsize>(kChunk));
    text.resize(had + static_cast<size_t>(in.gcount()));
  }
  if (text.size() > runtime::kMaxSubmissionBytes) {
    std::cerr << fmt::format("error: {}: larger than {} MiB, the most a scheduler accepts in one submission\n", path,
                             runtime::kMaxSubmissionBytes >> 20);
    return std::nullopt;
  }
  if (in.bad()) {
    std::cerr << fmt::format("error: {}: cannot read\n", path);
    return std::nullopt;
  }
  return text;
}

// SendSubmission sends a workload's text under `key` (a new one if empty)
// and prints the job ids.
int SendSubmission(const SchedulerFlags& flags, const std::string& text, const std::string& key) {
  auto client = flags.Client();
  if (!client) return kExitBadInput;
  absl::StatusOr<std::vector<uint32_t>> ids = client->Submit(text, {}, 0, key.empty() ? NewSubmissionKey() : key);
  if (!ids.ok() && absl::IsUnavailable(ids.status())) {
    std::cerr << "error: " << ids.status().message() << "\n";
    return kExitTryAgain;
  }
  if (!ids.ok()) return ReportClientError(ids.status());
  for (uint32_t id : *ids) std::cout << id << "\n";
  return kExitOk;
}

int Submit(const SchedulerFlags& flags, const std::string& path, const std::string& key) {
  // Checked here first so a bad file never reaches the scheduler; the
  // scheduler checks again (it trusts no client). A jobs-only file (no
  // cluster section) can only be checked against the live nodes: there.
  const std::optional<std::string> text = ReadSubmission(path);
  if (!text) return kExitBadInput;
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const bool jobs_only = doc.is_object() && !doc.contains("cluster");
  if (!jobs_only && !ReadWorkloadOrReport(path)) return kExitBadInput;
  return SendSubmission(flags, *text, key);
}

// WrapFlags: `weft submit --wrap CMD`: one job of one stage running CMD, as
// `sbatch --wrap` does, without a workload file.
struct WrapFlags {
  std::string command;
  double cpu = 1;
  double mem = 1;
  uint32_t tasks = 1;
  double duration = 1;
  std::string name = "wrap";
  std::string user;
};

// WrapWorkload: the jobs-only workload (FORMATS §1) `--wrap` submits; the
// scheduler validates it as any submission.
std::string WrapWorkload(const WrapFlags& w) {
  nlohmann::json stage = {{"name", "wrap"},
                          {"tasks", w.tasks},
                          {"duration", w.duration},
                          {"demand", {{"cpu", w.cpu}, {"mem", w.mem}}},
                          {"command", w.command}};
  nlohmann::json job = {{"name", w.name}, {"stages", nlohmann::json::array({stage})}};
  if (!w.user.empty()) job["user"] = w.user;
  return nlohmann::json{{"weft", 1}, {"jobs", nlohmann::json::array({job})}}.dump();
}

// SignalName: "SIGKILL" for 9 (glibc's abbreviation), "?" for an unknown signal.
std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev == nullptr ? "?" : fmt::format("SIG{}", abbrev);
}

// FailureLines: why job `j`'s last failed attempt failed: where, its exit
// code or signal, the node's reason and the last lines of its stderr.
std::string FailureLines(const v1::JobStatus& j) {
  const v1::TaskFailure& f = j.last_failure();
  std::string how = f.signal() > 0 ? fmt::format("killed by signal {} ({})", f.signal(), SignalName(f.signal()))
                                   : fmt::format("exit code {}", f.exit_code());
  std::string text = fmt::format("job {} {}: stage {} task {} attempt {} on node {}: {}", j.id(),
                                 j.state() == "failed" ? "failed" : "last failed attempt", f.stage(), f.task(),
                                 f.attempt(), EscapeForDisplay(f.node()), how);
  if (!f.error().empty()) text += fmt::format(" ({})", EscapeForDisplay(f.error()));
  text += "\n";
  if (!f.stderr_tail().empty()) {
    text += "  its stderr ends with:\n";
    std::istringstream lines(f.stderr_tail());
    for (std::string line; std::getline(lines, line);) text += fmt::format("    {}\n", EscapeForDisplay(line));
  }
  return text;
}

// PrintStatus: one header line per scheduler replica, then the jobs of all,
// by id; with `why`, then why those with a failed attempt failed (for one
// job: a listing stays one line per job).
void PrintStatus(const std::vector<v1::StatusReply>& replies, bool why = false) {
  std::vector<v1::JobStatus> jobs;
  for (const v1::StatusReply& r : replies) {
    std::string line = fmt::format("policy {} | nodes {}/{} up | {}", r.policy(), r.nodes_up(), r.nodes_expected(),
                                   r.ready() ? "ready" : "waiting for nodes");
    if (r.replicas() > 1) line += fmt::format(" | scheduler replica {} of {}", r.replica(), r.replicas());
    if (!r.journal_error().empty()) {
      line += fmt::format(" | JOURNAL FAILING, new jobs refused and nothing launched until it commits: {}",
                          MessageForDisplay(r.journal_error()));
    }
    std::cout << line << "\n";
    jobs.insert(jobs.end(), r.jobs().begin(), r.jobs().end());
  }
  std::sort(jobs.begin(), jobs.end(), [](const v1::JobStatus& a, const v1::JobStatus& b) { return a.id() < b.id(); });
  if (!jobs.empty()) {
    std::cout << fmt::format("{:>5}  {:<24} {:<10} {:>15} {:>8}\n", "id", "name", "state", "done/tasks", "running");
  }
  for (const v1::JobStatus& j : jobs) {
    // Names are data from whoever submitted: never raw escape codes on a terminal.
    std::cout << fmt::format("{:>5}  {:<24} {:<10} {:>15} {:>8}\n", j.id(), EscapeForDisplay(j.name()),
                             EscapeForDisplay(j.state()),
                             fmt::format("{}/{}", j.done(), j.tasks()), j.running());
  }
  for (const v1::JobStatus& j : jobs) {
    if (why && j.has_last_failure()) std::cout << FailureLines(j);
  }
}

int Status(const SchedulerFlags& flags, std::optional<uint32_t> job, const std::string& out) {
  auto client = flags.Client();
  if (!client) return kExitBadInput;
  if (job) {
    absl::StatusOr<v1::StatusReply> reply = client->JobStatus(*job);
    if (!reply.ok()) return ReportClientError(reply.status());
    PrintStatus({*reply}, /*why=*/true);
  } else {
    absl::StatusOr<std::vector<v1::StatusReply>> replies = client->StatusAll();
    if (!replies.ok()) return ReportClientError(replies.status());
    PrintStatus(*replies);
  }
  if (!out.empty()) {
    absl::StatusOr<std::vector<std::vector<v1::ExportChunk>>> exports = client->ExportAll();
    if (!exports.ok()) return ReportClientError(exports.status());
    if (absl::Status s = runtime::WriteExportedResults(*exports, out); !s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return kExitFailure;
    }
    std::cout << "results written to " << out << "\n";
  }
  return kExitOk;
}

// Nodes: one line per node: up or down, then cpu and memory as capacity,
// what the policy reserved and what the node measured its tasks use.
int Nodes(const SchedulerFlags& flags) {
  auto client = flags.Client();
  if (!client) return kExitBadInput;
  absl::StatusOr<v1::StatusReply> reply = client->Nodes();
  if (!reply.ok()) return ReportClientError(reply.status());
  std::cout << fmt::format("{:<24} {:<5} {:>8} {:>12} {:>8} {:>8} {:>12} {:>8}\n", "node", "state", "cpu", "cpu_reserved",
                           "cpu_used", "mem_gb", "mem_reserved", "mem_used");
  for (const v1::NodeStatus& n : reply->nodes()) {
    std::cout << fmt::format("{:<24} {:<5} {:>8.2f} {:>12.2f} {:>8.2f} {:>8.2f} {:>12.2f} {:>8.2f}\n",
                             EscapeForDisplay(n.name()), n.up() ? "up" : "down", n.capacity().cpu(), n.reserved().cpu(),
                             n.used().cpu(), n.capacity().mem(), n.reserved().mem(), n.used().mem());
  }
  if (reply->nodes_size() < static_cast<int>(reply->nodes_expected())) {
    std::cout << fmt::format("({} of {} expected nodes have registered)\n", reply->nodes_size(), reply->nodes_expected());
  }
  return kExitOk;
}

// Failover: where `weft wait` moves a job whose scheduler daemon is down
// (runtime/client/failover.h).
struct FailoverFlags {
  double after_s = 10;                 // --failover-after: unreachable this long (0: never)
  std::vector<std::string> state_dirs;  // --state-dir; default: the cluster dirs of the addresses
};

// TryMove: job's daemon has been unreachable for a while: if it is one of
// several replicas and others answer, move the job to one of them.
absl::StatusOr<runtime::MovedJob> TryMove(runtime::SchedulerClient& client, uint32_t job, const FailoverFlags& f) {
  absl::StatusOr<std::vector<v1::StatusReply>> live = client.StatusAll();
  if (!live.ok()) return live.status();
  const uint32_t replicas = live->front().replicas();
  if (replicas <= 1) return absl::FailedPreconditionError("no other scheduler replica to move it to");
  for (const v1::StatusReply& r : *live) {
    if (r.replica() == job % replicas) return absl::FailedPreconditionError("its scheduler answers again");
  }
  std::vector<std::filesystem::path> dirs(f.state_dirs.begin(), f.state_dirs.end());
  if (dirs.empty()) {
    for (const std::string& address : client.addresses()) {
      const std::filesystem::path d = runtime::ClusterDirFor(address);
      if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
    }
  }
  if (dirs.empty()) return absl::NotFoundError("its scheduler's state dir is unknown (give --state-dir)");
  return runtime::MoveJob(client, job, replicas, dirs);
}

int Wait(const SchedulerFlags& flags, uint32_t job, double timeout_s, const FailoverFlags& failover) {
  auto client = flags.Client();
  if (!client) return kExitBadInput;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::milliseconds(10);
  std::optional<std::chrono::steady_clock::time_point> unreachable_since;
  std::string said;  // the last reason a move could not be made, said once
  while (true) {
    absl::StatusOr<v1::StatusReply> reply = client->JobStatus(job);
    if (!reply.ok() && !absl::IsUnavailable(reply.status())) return ReportClientError(reply.status());
    if (reply.ok() && reply->jobs_size() == 1) {
      unreachable_since.reset();
      const std::string& state = reply->jobs(0).state();
      if (state == "moved" && reply->jobs(0).moved_to() > 0) {
        std::cout << fmt::format("job {} moved to job {}\n", job, reply->jobs(0).moved_to() - 1);
        job = reply->jobs(0).moved_to() - 1;
        continue;
      }
      if (state == "succeeded" || state == "failed" || state == "cancelled") {
        std::cout << fmt::format("job {} {}\n", job, state);
        return state == "succeeded" ? kExitOk : kExitFailure;
      }
    }
    if (!reply.ok()) {
      const auto now = std::chrono::steady_clock::now();
      if (!unreachable_since) unreachable_since = now;
      if (failover.after_s > 0 && now - *unreachable_since >= std::chrono::duration<double>(failover.after_s)) {
        absl::StatusOr<runtime::MovedJob> moved = TryMove(*client, job, failover);
        if (moved.ok() && !moved->ended.empty()) {
          std::cout << fmt::format("job {} {}\n", job, moved->ended);
          return moved->ended == "succeeded" ? kExitOk : kExitFailure;
        }
        if (moved.ok()) {
          std::cout << fmt::format("job {} moved to job {}{}\n", job, moved->to,
                                   moved->already ? "" : fmt::format(" ({} of its tasks were done)", moved->done));
          job = moved->to;
          unreachable_since.reset();
          continue;
        }
        if (std::string why(moved.status().message()); why != said) {
          std::cerr << fmt::format("note: job {}'s scheduler is unreachable and the job cannot move: {}\n", job, why);
          said = why;
        }
      }
    }
    // An unreachable scheduler may be restarting: keep waiting until the deadline.
    if (timeout_s > 0 && std::chrono::steady_clock::now() >= deadline) {
      std::cerr << fmt::format("error: job {} did not end within {} s\n", job, timeout_s);
      return kExitTimedOut;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

int Cancel(const SchedulerFlags& flags, uint32_t job) {
  auto client = flags.Client();
  if (!client) return kExitBadInput;
  if (absl::Status s = client->Cancel(job); !s.ok()) return ReportClientError(s);
  std::cout << fmt::format("job {} cancelled\n", job);
  return kExitOk;
}

}  // namespace

void AddJobCommands(CLI::App& app, CommandRun& run) {
  {
    auto flags = std::make_shared<SchedulerFlags>();
    auto path = std::make_shared<std::string>();
    auto wrap = std::make_shared<WrapFlags>();
    auto key = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("submit", "Submit a workload's jobs to a running scheduler; prints their ids");
    flags->Add(cmd);
    cmd->add_option("--idempotency-key", *key,
                    "The submission's key (default: a new one): a scheduler that has the key already returns the "
                    "ids it gave and adds nothing");
    CLI::Option* workload =
        cmd->add_option("workload", *path, "Workload file (weft JSON; its cluster section is ignored)");
    CLI::Option* command =
        cmd->add_option("--wrap", wrap->command, "Submit one job of one stage running CMD (no workload file)");
    workload->excludes(command);
    // The job --wrap makes; meaningless without it.
    const std::vector<CLI::Option*> shape = {
        cmd->add_option("--cpu", wrap->cpu, "--wrap: cores each task reserves")->capture_default_str()->check(CLI::Range(0.0, 1e5)),
        cmd->add_option("--mem", wrap->mem, "--wrap: GB each task reserves")->capture_default_str()->check(CLI::Range(0.0, 1e7)),
        cmd->add_option("--tasks", wrap->tasks, "--wrap: how many tasks run CMD")->capture_default_str()->check(CLI::Range(1u, 1000000u)),
        cmd->add_option("--duration", wrap->duration, "--wrap: seconds a task is expected to take (the policy's estimate)")
            ->capture_default_str()
            ->check(CLI::Range(1e-6, 1e9)),
        cmd->add_option("--name", wrap->name, "--wrap: the job's name")->capture_default_str(),
        cmd->add_option("--user", wrap->user, "--wrap: the job's user"),
    };
    for (CLI::Option* o : shape) o->needs(command);
    cmd->callback([&run, flags, path, wrap, command, key] {
      if (command->count() == 0 && path->empty()) throw CLI::RequiredError("a workload file or --wrap CMD");
      run = [flags, path, wrap, command, key] {
        return command->count() > 0 ? SendSubmission(*flags, WrapWorkload(*wrap), *key) : Submit(*flags, *path, *key);
      };
    });
  }
  {
    auto flags = std::make_shared<SchedulerFlags>();
    auto job = std::make_shared<std::optional<uint32_t>>();
    auto out = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("status", "Show a running scheduler's jobs (or one job)");
    flags->Add(cmd);
    cmd->add_option("job", *job, "Job id");
    cmd->add_option("--out", *out, "Also export the run so far as tasks.csv, jobs.csv, summary.json into DIR");
    cmd->callback([&run, flags, job, out] { run = [flags, job, out] { return Status(*flags, *job, *out); }; });
  }
  {
    auto flags = std::make_shared<SchedulerFlags>();
    auto job = std::make_shared<uint32_t>();
    auto timeout = std::make_shared<double>(0);
    auto failover = std::make_shared<FailoverFlags>();
    CLI::App* cmd = app.add_subcommand("wait", "Wait for a job to end: exit 0 succeeded, 1 failed, 3 timed out");
    flags->Add(cmd);
    cmd->add_option("job", *job, "Job id")->required();
    cmd->add_option("--timeout", *timeout, "Give up after S seconds (0: never)")->check(CLI::Range(0.0, 1e9));
    cmd->add_option("--failover-after", failover->after_s,
                    "Move the job to a live scheduler replica once its own has been unreachable S seconds (0: never)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1e9));
    cmd->add_option("--state-dir", failover->state_dirs,
                    "State dir of a scheduler daemon (or a cluster dir holding them), for failover "
                    "(default: the cluster dirs of the --scheduler addresses)");
    cmd->callback([&run, flags, job, timeout, failover] {
      run = [flags, job, timeout, failover] { return Wait(*flags, *job, *timeout, *failover); };
    });
  }
  {
    auto flags = std::make_shared<SchedulerFlags>();
    CLI::App* cmd = app.add_subcommand("nodes", "List a running scheduler's nodes: up or down, capacity, reserved, used");
    flags->Add(cmd);
    cmd->callback([&run, flags] { run = [flags] { return Nodes(*flags); }; });
  }
  {
    auto flags = std::make_shared<SchedulerFlags>();
    auto job = std::make_shared<uint32_t>();
    CLI::App* cmd = app.add_subcommand("cancel", "Cancel a job: its running tasks are killed");
    flags->Add(cmd);
    cmd->add_option("job", *job, "Job id")->required();
    cmd->callback([&run, flags, job] { run = [flags, job] { return Cancel(*flags, *job); }; });
  }
}

}  // namespace weft::cli
