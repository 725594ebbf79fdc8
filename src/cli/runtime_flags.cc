#include "cli/runtime_flags.h"

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "runtime/auth.h"
#include "runtime/local_tokens.h"
#include "runtime/tls_flags.h"
#include "runtime/wire.h"

namespace weft::cli {

void SchedulerFlags::Add(CLI::App* cmd) {
  cmd->add_option("--scheduler", scheduler, "scheduler address HOST:PORT (several: a,b for failover)")->required();
  cmd->add_option("--token-file", token_file, "the scheduler's shared token (default: $WEFT_TOKEN_FILE, else the one `weft cluster up` recorded for the address)");
  runtime::AddTlsFlags(cmd, tls, runtime::TlsSide::kClient);
}

namespace {
// OrEnv: `flag` if given, else the environment's `name` (unset: empty).
std::string OrEnv(const std::string& flag, const char* name) {
  const char* value = std::getenv(name);
  return !flag.empty() || value == nullptr ? flag : std::string(value);
}
}  // namespace

std::unique_ptr<runtime::SchedulerClient> SchedulerFlags::Client() const {
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
  absl::StatusOr<runtime::TlsConfig> config = runtime::LoadClientTls(
      {.ca = OrEnv(tls.ca, "WEFT_TLS_CA"), .cert = OrEnv(tls.cert, "WEFT_TLS_CERT"), .key = OrEnv(tls.key, "WEFT_TLS_KEY")});
  if (!config.ok()) {
    std::cerr << "error: " << config.status().message() << "\n";
    return nullptr;
  }
  runtime::QuietGrpcLogs();
  return std::make_unique<runtime::SchedulerClient>(scheduler, token, std::move(*config));
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
