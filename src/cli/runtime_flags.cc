#include "cli/runtime_flags.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include "cli/commands.h"
#include "fmt/format.h"
#include "runtime/auth.h"
#include "runtime/local_tokens.h"
#include "runtime/tls_flags.h"
#include "runtime/wire.h"

namespace weft::cli {

void SchedulerFlags::Add(CLI::App* cmd) {
  cmd->add_option("--scheduler", scheduler,
                  "scheduler address HOST:PORT or unix:PATH (several: a,b for failover); default: $WEFT_SCHEDULER, else the one "
                  "local cluster `weft cluster up` recorded");
  cmd->add_option("--token-file", token_file, "the scheduler's shared token (default: $WEFT_TOKEN_FILE, else the one `weft cluster up` recorded for the address)");
  runtime::AddTlsFlags(cmd, tls, runtime::TlsSide::kClient);
  cmd->add_flag("--insecure", insecure,
                "send the token to a TCP address without TLS (anyone who took the scheduler's port after a crash "
                "would receive it; a unix: address or --tls-ca needs no flag)");
}

namespace {
// OrEnv: `flag` if given, else the environment's `name` (unset: empty).
std::string OrEnv(const std::string& flag, const char* name) {
  const char* value = std::getenv(name);
  return !flag.empty() || value == nullptr ? flag : std::string(value);
}
// LocalClusters: the addresses `weft cluster up` recorded in the per-user
// index (runtime/local_tokens.h), grouped by cluster (its token file: the
// replicas of one cluster share it), each group's addresses joined by ','.
std::vector<std::string> LocalClusters() {
  std::map<std::string, std::vector<std::string>> by_token;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(runtime::TokenIndexDir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp") != std::string::npos) continue;  // being written
    const std::string address = runtime::AddressOfEntry(name);
    const std::string token = runtime::TokenFileFor(address);
    if (!token.empty()) by_token[token].push_back(address);
  }
  std::vector<std::string> clusters;
  for (auto& [token, addresses] : by_token) {
    std::sort(addresses.begin(), addresses.end());
    std::string joined;
    for (const std::string& a : addresses) joined += (joined.empty() ? "" : ",") + a;
    clusters.push_back(joined);
  }
  return clusters;
}
}  // namespace

absl::StatusOr<std::string> SchedulerFlags::Address() const {
  if (!scheduler.empty()) return scheduler;
  if (const char* env = std::getenv("WEFT_SCHEDULER"); env != nullptr && env[0] != '\0') return std::string(env);
  const std::vector<std::string> clusters = LocalClusters();
  if (clusters.size() == 1) return clusters.front();
  if (clusters.empty()) {
    return absl::InvalidArgumentError("no scheduler: give --scheduler ADDR or set WEFT_SCHEDULER (no local cluster is up)");
  }
  std::string list;
  for (const std::string& c : clusters) list += (list.empty() ? "" : " ") + c;
  return absl::InvalidArgumentError(
      fmt::format("no scheduler: {} local clusters are up ({}); give --scheduler ADDR or set WEFT_SCHEDULER",
                  clusters.size(), list));
}

std::unique_ptr<runtime::SchedulerClient> SchedulerFlags::Client() const {
  const absl::StatusOr<std::string> address = Address();
  if (!address.ok()) {
    std::cerr << "error: " << address.status().message() << "\n";
    return nullptr;
  }
  const std::string& scheduler = *address;
  std::string file = OrEnv(token_file, "WEFT_TOKEN_FILE");
  // Else the token `weft cluster up` recorded for one of these addresses
  // (runtime/local_tokens.h): its owner needs no flag.
  for (const std::string& address : runtime::SplitAddresses(scheduler)) {
    if (!file.empty()) break;
    file = runtime::TokenFileFor(address);
  }
  std::string token;
  if (!file.empty()) {
    absl::StatusOr<std::string> t = runtime::ReadTokenFile(file);
    if (!t.ok()) {
      std::cerr << "error: " << t.status().message() << "\n";
      return nullptr;
    }
    token = *t;
  }
  // The CA: the flag, the environment, else the one `cluster up` recorded
  // for an address (its cluster's own certificate, runtime/cluster_cert.h).
  std::string ca = OrEnv(tls.ca, "WEFT_TLS_CA");
  for (const std::string& address : runtime::SplitAddresses(scheduler)) {
    if (!ca.empty()) break;
    ca = runtime::TlsCaFor(address);
  }
  absl::StatusOr<runtime::TlsConfig> config = runtime::LoadClientTls(
      {.ca = ca, .cert = OrEnv(tls.cert, "WEFT_TLS_CERT"), .key = OrEnv(tls.key, "WEFT_TLS_KEY")});
  if (!config.ok()) {
    std::cerr << "error: " << config.status().message() << "\n";
    return nullptr;
  }
  runtime::QuietGrpcLogs();
  return std::make_unique<runtime::SchedulerClient>(scheduler, token, std::move(*config), insecure);
}

int ReportClientError(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kUnauthenticated:
      return kExitBadInput;
    default:
      return kExitFailure;
  }
}

}  // namespace weft::cli
