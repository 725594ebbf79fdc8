#include "runtime/tls.h"

#include <grpc/support/log.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

#include "fmt/format.h"
#include "runtime/auth.h"

namespace weft::runtime {

namespace {

constexpr size_t kMaxPemBytes = 1 << 20;

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using BioPtr = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;

absl::StatusOr<std::string> ReadPem(const std::string& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(fmt::format("{} {}: cannot read the file", flag, path));
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxPemBytes) return absl::InvalidArgumentError(fmt::format("{} {}: over 1 MiB", flag, path));
  return text.str();
}

BioPtr BioOf(const std::string& pem) { return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

// NoPassphrase refuses to prompt: a daemon has no one to ask.
int NoPassphrase(char*, int, int, void*) { return 0; }

// Certificates: every certificate in `pem`, at least one, each within its validity.
absl::StatusOr<X509Ptr> FirstCertificate(const std::string& pem, const std::string& path, std::string_view flag) {
  BioPtr bio = BioOf(pem);
  X509Ptr first;
  while (X509* raw = PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr)) {
    X509Ptr cert(raw);
    if (X509_cmp_current_time(X509_get0_notAfter(cert.get())) < 0) {
      return absl::InvalidArgumentError(fmt::format("{} {}: a certificate in it has expired", flag, path));
    }
    if (X509_cmp_current_time(X509_get0_notBefore(cert.get())) > 0) {
      return absl::InvalidArgumentError(fmt::format("{} {}: a certificate in it is not valid yet", flag, path));
    }
    if (!first) first = std::move(cert);
  }
  ERR_clear_error();  // the end of the input reads as an error
  if (!first) return absl::InvalidArgumentError(fmt::format("{} {}: no PEM certificate in it", flag, path));
  return first;
}

// LoadPair reads and checks a certificate and its key into `config`.
absl::Status LoadPair(const TlsFiles& files, TlsConfig& config) {
  absl::StatusOr<std::string> cert = ReadPem(files.cert, "--tls-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<X509Ptr> x509 = FirstCertificate(*cert, files.cert, "--tls-cert");
  if (!x509.ok()) return x509.status();
  // The key is the secret: refused where other users can read it, as a token is.
  if (absl::Status s = CheckPrivateFile(files.key, "--tls-key"); !s.ok()) return s;
  absl::StatusOr<std::string> key = ReadPem(files.key, "--tls-key");
  if (!key.ok()) return key.status();
  BioPtr bio = BioOf(*key);
  KeyPtr pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  ERR_clear_error();
  if (!pkey) {
    return absl::InvalidArgumentError(
        fmt::format("--tls-key {}: no PEM private key in it (a key with a passphrase cannot be used)", files.key));
  }
  if (X509_check_private_key(x509->get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        fmt::format("--tls-key {} is not the key of --tls-cert {}", files.key, files.cert));
  }
  config.cert_pem = std::move(*cert);
  config.key_pem = std::move(*key);
  return absl::OkStatus();
}

absl::Status LoadCa(const TlsFiles& files, TlsConfig& config) {
  absl::StatusOr<std::string> ca = ReadPem(files.ca, "--tls-ca");
  if (!ca.ok()) return ca.status();
  if (absl::StatusOr<X509Ptr> first = FirstCertificate(*ca, files.ca, "--tls-ca"); !first.ok()) return first.status();
  config.ca_pem = std::move(*ca);
  return absl::OkStatus();
}

absl::Status PairGivenTogether(const TlsFiles& files) {
  if (files.cert.empty() != files.key.empty()) {
    return absl::InvalidArgumentError(files.cert.empty() ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TlsConfig> LoadServerTls(const TlsFiles& files) {
  TlsConfig config;
  config.files = files;
  if (absl::Status s = PairGivenTogether(files); !s.ok()) return s;
  if (files.cert.empty() && !files.ca.empty()) {
    return absl::InvalidArgumentError("--tls-ca (clients must present a certificate) needs --tls-cert and --tls-key");
  }
  if (!files.cert.empty()) {
    if (absl::Status s = LoadPair(files, config); !s.ok()) return s;
  }
  if (!files.ca.empty()) {
    if (absl::Status s = LoadCa(files, config); !s.ok()) return s;
  }
  return config;
}

absl::StatusOr<TlsConfig> LoadClientTls(const TlsFiles& files) {
  TlsConfig config;
  config.files = files;
  if (absl::Status s = PairGivenTogether(files); !s.ok()) return s;
  if (files.ca.empty() && !files.cert.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key need --tls-ca (the CA that signed the scheduler's certificate)");
  }
  if (!files.ca.empty()) {
    if (absl::Status s = LoadCa(files, config); !s.ok()) return s;
  }
  if (!files.cert.empty()) {
    if (absl::Status s = LoadPair(files, config); !s.ok()) return s;
  }
  return config;
}

absl::Status CheckListenSecurity(std::string_view address, bool has_token, const TlsConfig& tls, bool insecure) {
  if (absl::Status s = CheckListen(address, has_token); !s.ok()) return s;
  if (IsUnixAddress(address) || tls.enabled() || insecure) return absl::OkStatus();
  if (!IsLoopback(address)) {
    return absl::InvalidArgumentError(fmt::format(
        "refusing to listen on {} in clear text: give --tls-cert and --tls-key (docs/runtime.md, \"Security\"), "
        "or --insecure on a network you trust",
        address));
  }
  if (has_token) {
    return absl::InvalidArgumentError(fmt::format(
        "refusing to take a token in clear text on {}: after a crash any local user can take the port and receive "
        "it; listen on unix:PATH, give --tls-cert and --tls-key, or --insecure to accept that (docs/runtime.md, "
        "\"Security\")",
        address));
  }
  return absl::OkStatus();
}

absl::Status CheckTokenDestination(std::string_view address, bool has_token, const TlsConfig& tls, bool insecure) {
  if (!has_token || IsUnixAddress(address) || tls.enabled() || insecure) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "refusing to send the token in clear text to {}: nothing proves the listener there is the scheduler (after a "
      "crash any local user can take a TCP port); give --tls-ca, use its unix: address, or --insecure to send it "
      "anyway (docs/runtime.md, \"Security\")",
      address));
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(tls.mutual() ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                                         : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_root_certs = tls.ca_pem;
  options.pem_key_cert_pairs.push_back({tls.key_pem, tls.cert_pem});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const TlsConfig& tls) {
  if (!tls.enabled()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = tls.ca_pem;
  options.pem_private_key = tls.key_pem;
  options.pem_cert_chain = tls.cert_pem;
  return grpc::SslCredentials(options);
}

std::string ExplainUnavailable(std::string_view message, const TlsConfig& tls) {
  // gRPC says "Ssl handshake failed: ... certificate verify failed" when this
  // side rejects the server's certificate, and "Socket closed" when the
  // server hung up during the handshake (it wanted TLS, or a certificate).
  const auto has = [&](std::string_view what) { return message.find(what) != std::string_view::npos; };
  std::string out(message);
  if (tls.enabled() && (has("andshake") || has("SSL") || has("ertificate"))) {
    out += " (TLS: the scheduler's certificate is not signed by --tls-ca, or its subjectAltName does not name "
           "the host dialled, or the scheduler does not use TLS)";
  } else if (tls.enabled() && has("Socket closed")) {
    out += " (TLS: the scheduler closed the connection in the handshake: it wants --tls-cert and --tls-key "
           "signed by its own CA)";
  } else if (!tls.enabled() && (has("Socket closed") || has("reset"))) {
    out += " (the scheduler may want TLS: give --tls-ca)";
  }
  return out;
}

void QuietGrpcLogs() {
  gpr_set_log_function([](gpr_log_func_args*) {});
}

}  // namespace weft::runtime
