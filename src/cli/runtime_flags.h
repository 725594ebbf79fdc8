// File: cli/runtime_flags.h
//
// What the commands that talk to a running scheduler share: the
// --scheduler flag (else $WEFT_SCHEDULER, else the one local cluster's
// address) and --token-file (the token file may also come from
// $WEFT_TOKEN_FILE, else from the index `weft cluster up` keeps of its
// addresses: runtime/local_tokens.h), the TLS flags --tls-ca, --tls-cert and
// --tls-key (else $WEFT_TLS_CA, $WEFT_TLS_CERT, $WEFT_TLS_KEY: runtime/tls.h),
// --insecure (a token may go to a clear-text TCP address: runtime/tls.h's
// CheckTokenDestination), building a client, and the mapping of a client error
// to an exit code (2 for a request the scheduler refused as bad input, 1
// when it cannot be reached or failed).
#pragma once

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/client/scheduler_client.h"
#include "runtime/tls.h"

namespace weft::cli {

struct SchedulerFlags {
  std::string scheduler;
  std::string token_file;
  runtime::TlsFiles tls;
  bool insecure = false;

  void Add(CLI::App* cmd);
  // Address: --scheduler, else $WEFT_SCHEDULER, else the addresses of the
  // one local cluster `weft cluster up` recorded (runtime/local_tokens.h);
  // InvalidArgument (one line) when none is given and there is not exactly one.
  absl::StatusOr<std::string> Address() const;
  // Client builds the client; nullptr after printing the error (no address,
  // bad token or TLS file).
  std::unique_ptr<runtime::SchedulerClient> Client() const;
};

// ReportClientError prints one line and returns the exit code for `status`.
int ReportClientError(const absl::Status& status);

}  // namespace weft::cli
