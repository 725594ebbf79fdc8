// File: runtime/tls_flags.h
//
// The --tls-ca, --tls-cert and --tls-key flags, worded for the side that
// takes them (runtime/tls.h says what each side does with them): the same
// three names on `weftd scheduler`, `weftd node` and `weft`'s client commands.
#pragma once

#include "CLI/CLI.hpp"
#include "runtime/tls.h"

namespace weft::runtime {

enum class TlsSide { kServer, kClient };

inline void AddTlsFlags(CLI::App* cmd, TlsFiles& files, TlsSide side) {
  if (side == TlsSide::kServer) {
    cmd->add_option("--tls-cert", files.cert, "PEM certificate of the listener (TLS; with --tls-key)");
    cmd->add_option("--tls-key", files.key, "PEM private key of --tls-cert (not readable by other users)");
    cmd->add_option("--tls-ca", files.ca,
                    "PEM CA: clients and nodes must present a certificate it signed (mutual TLS)");
  } else {
    cmd->add_option("--tls-ca", files.ca,
                    "PEM CA that signed the scheduler's certificate: turns TLS on");
    cmd->add_option("--tls-cert", files.cert, "PEM certificate to present to a mutual-TLS scheduler (with --tls-key)");
    cmd->add_option("--tls-key", files.key, "PEM private key of --tls-cert (not readable by other users)");
  }
}

}  // namespace weft::runtime
