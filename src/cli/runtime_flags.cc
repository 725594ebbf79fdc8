#include "cli/runtime_flags.h"

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "runtime/auth.h"
#include "runtime/local_tokens.h"
#include "runtime/wire.h"

namespace weft::cli {

void SchedulerFlags::Add(CLI::App* cmd) {
  cmd->add_option("--scheduler", scheduler, "scheduler address HOST:PORT (several: a,b for failover)")->required();
  cmd->add_option("--token-file", token_file, "the scheduler's shared token (default: $WEFT_TOKEN_FILE, else the one `weft cluster up` recorded for the address)");
}

std::unique_ptr<runtime::SchedulerClient> SchedulerFlags::Client() const {
  std::string file = token_file;
  if (file.empty() && std::getenv("WEFT_TOKEN_FILE") != nullptr) file = std::getenv("WEFT_TOKEN_FILE");
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
  return std::make_unique<runtime::SchedulerClient>(scheduler, token);
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
