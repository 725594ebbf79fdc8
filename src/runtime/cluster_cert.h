// File: runtime/cluster_cert.h
//
// A cluster's own TLS certificate (issue 34, finding 2): `weft cluster up`
// makes one, kept in DIR/tls/, for its dashboard's HTTPS (browsers and
// scrapers pin it), and with `--slurm N --listen HOST:PORT` without TLS
// files for its scheduler too, whose nodes and clients trust it alone
// (--tls-ca), so a bearer token never crosses a
// connection to a peer that does not hold the cluster's key: one that took
// a freed port gets a TLS handshake that fails, not the token. A
// self-signed ECDSA P-256 certificate valid for 10 years, naming HOST (as
// an address or a name), 127.0.0.1 and localhost, usable as its own CA.
// Thread-safe: plain functions.
#pragma once

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"

namespace weft::runtime {

struct ClusterCertFiles {
  std::filesystem::path cert;  // PEM certificate, mode 0644
  std::filesystem::path key;   // PEM private key, mode 0600
};

// ClusterCertIn: where a cluster folder keeps them.
ClusterCertFiles ClusterCertIn(const std::filesystem::path& cluster_dir);

// EnsureClusterCert makes the certificate and key for `host` in `files`
// when there are none yet (its folder made 0700); an existing pair is kept
// (daemons still alive use it, clients pinned it). InvalidArgument on
// failure, or when the existing certificate does not name `host`.
absl::Status EnsureClusterCert(const ClusterCertFiles& files, std::string_view host);

}  // namespace weft::runtime
