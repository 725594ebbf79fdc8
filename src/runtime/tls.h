// File: runtime/tls.h
//
// TLS for the runtime's gRPC port (docs/runtime.md, "Security"): one
// mechanism for the scheduler's listener, the nodes' channels and the
// client's, on gRPC's SSL credentials.
//   - scheduler: --tls-cert and --tls-key make its listener TLS; --tls-ca as
//     well makes it mutual (a client or node must present a certificate
//     signed by that CA). A TCP listener that takes a token, or any on an
//     address but loopback, needs a certificate unless `--insecure` says
//     clear text is meant.
//   - node and client: --tls-ca turns TLS on and is the CA the scheduler's
//     certificate must be signed by (its subjectAltName must name the host
//     of the address dialled); --tls-cert and --tls-key, with it, are the
//     certificate they present to a mutual-TLS scheduler. Without TLS they
//     send a token only over a unix: socket, or with `--insecure`.
// Files are read and checked once, at start (PEM that parses, a key that
// matches its certificate, a certificate within its validity, a key file
// other users cannot read): a bad one is one line naming the file and flag.
// Thread-safe: plain functions and values.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace weft::runtime {

// TlsFiles: the paths as given on the command line (empty: not given).
struct TlsFiles {
  std::string ca, cert, key;
  bool any() const { return !ca.empty() || !cert.empty() || !key.empty(); }
};

// TlsConfig: the checked PEM text; all empty means clear text.
struct TlsConfig {
  std::string ca_pem, cert_pem, key_pem;
  TlsFiles files;  // where they came from (the dashboard's HTTPS reads paths)
  bool enabled() const { return !cert_pem.empty() || !ca_pem.empty(); }
  bool mutual() const { return !ca_pem.empty() && !cert_pem.empty(); }
};

// LoadServerTls: the scheduler's files. Cert and key go together; a CA
// needs them (it only makes sense on a TLS listener). InvalidArgument on any
// bad or missing file.
absl::StatusOr<TlsConfig> LoadServerTls(const TlsFiles& files);

// LoadClientTls: a node's or client's files. Cert and key go together and
// need the CA (without it TLS is off and there is nothing to present them to).
absl::StatusOr<TlsConfig> LoadClientTls(const TlsFiles& files);

// CheckListenSecurity: the rule for a listener at `address` (the gRPC port or
// the dashboard). A unix:PATH socket needs nothing (its folder decides who
// may connect, and nobody else can take its place). On TCP, loopback
// included, a listener that takes a token needs TLS or `insecure` (clear
// text said out loud): after a crash, any local user can take a freed port
// and receive the token its clients keep sending. Beyond loopback a token is
// required too. A loopback listener without a token holds no secret.
absl::Status CheckListenSecurity(std::string_view address, bool has_token, const TlsConfig& tls, bool insecure);

// CheckTokenDestination: the same rule from the sending side (a client or a
// node): a token goes only to a peer that was proved to be the scheduler: a
// unix:PATH socket, or a TLS connection (its certificate is checked before
// anything is sent). To a clear-text TCP address, loopback included, only
// with `insecure`. No token: nothing to protect, always OK.
absl::Status CheckTokenDestination(std::string_view address, bool has_token, const TlsConfig& tls, bool insecure);

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TlsConfig& tls);
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const TlsConfig& tls);

// ExplainUnavailable adds what a user can do to a failed connection's
// message: a handshake that failed names the likely causes, and a clear-text
// client whose connection was closed is told a TLS scheduler needs --tls-ca.
std::string ExplainUnavailable(std::string_view message, const TlsConfig& tls);

// QuietGrpcLogs drops gRPC's own log lines (a failed handshake is one on
// stderr): a command-line client reports the call's error in its own line.
void QuietGrpcLogs();

}  // namespace weft::runtime
