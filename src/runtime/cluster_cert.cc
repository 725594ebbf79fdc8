// File: runtime/cluster_cert.cc
#include "runtime/cluster_cert.h"

#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "runtime/owned_files.h"

namespace weft::runtime {

namespace fs = std::filesystem;

namespace {

constexpr long kValidSeconds = 10L * 365 * 24 * 3600;

template <typename T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Freer<BIO, BIO_free_all>>;

std::string Pem(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || write(bio.get()) != 1) return "";
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

// AddExtension adds a v3 extension given in openssl's config syntax.
bool AddExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// AltNames: subjectAltName naming `host` as what it is (an address or a name).
std::string AltNames(std::string_view host) {
  std::string h(host);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  in6_addr any{};
  const bool address = inet_pton(AF_INET, h.c_str(), &any) == 1 || inet_pton(AF_INET6, h.c_str(), &any) == 1;
  std::string names = "IP:127.0.0.1,DNS:localhost";
  if (!h.empty() && h != "127.0.0.1" && h != "localhost") names += (address ? ",IP:" : ",DNS:") + h;
  return names;
}

// Names: the PEM certificate in `path` names `host` (an address or a name)
// in its subjectAltName; false when it cannot be read.
bool Names(const fs::path& path, std::string_view host) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return false;
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return false;
  std::string h(host);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  in6_addr any{};
  if (inet_pton(AF_INET, h.c_str(), &any) == 1 || inet_pton(AF_INET6, h.c_str(), &any) == 1) {
    return X509_check_ip_asc(cert.get(), h.c_str(), 0) == 1;
  }
  return X509_check_host(cert.get(), h.data(), h.size(), 0, nullptr) == 1;
}

}  // namespace

ClusterCertFiles ClusterCertIn(const fs::path& cluster_dir) {
  return {.cert = cluster_dir / "tls" / "cluster.pem", .key = cluster_dir / "tls" / "cluster.key"};
}

absl::Status EnsureClusterCert(const ClusterCertFiles& files, std::string_view host) {
  std::error_code ec;
  if (fs::exists(files.cert, ec) && fs::exists(files.key, ec)) {
    // Kept, not remade, so what pinned it still trusts it; but a certificate
    // made for another address would fail every handshake: said at once.
    if (host.empty() || Names(files.cert, host)) return absl::OkStatus();
    return absl::InvalidArgumentError(fmt::format(
        "the cluster's certificate {} does not name {} (it was made for another address): after `weft cluster "
        "down`, remove {} to make a new one",
        files.cert.string(), host, files.cert.parent_path().string()));
  }
  if (absl::Status s = MakePrivateDir(files.cert.parent_path(), "certificate folder"); !s.ok()) return s;
  const auto fail = [&](std::string_view step) {
    return absl::InvalidArgumentError(fmt::format("cannot make the cluster's certificate {}: {}", files.cert.string(), step));
  };
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return fail("key generation");
  X509Ptr cert(X509_new());
  unsigned char serial[16];
  if (!cert || RAND_bytes(serial, sizeof serial) != 1) return fail("serial");
  serial[0] &= 0x7f;  // a positive serial
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  const bool serial_ok = bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
  BN_free(bn);
  X509_NAME* name = X509_get_subject_name(cert.get());
  const bool ok =
      serial_ok && X509_set_version(cert.get(), 2) == 1 &&
      X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&  // a clock a little behind still accepts it
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidSeconds) != nullptr &&
      X509_set_pubkey(cert.get(), key.get()) == 1 &&
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("weft cluster"), -1,
                                 -1, 0) == 1 &&
      X509_set_issuer_name(cert.get(), name) == 1 &&
      AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") &&
      AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") &&
      AddExtension(cert.get(), NID_ext_key_usage, "serverAuth") &&
      AddExtension(cert.get(), NID_subject_key_identifier, "hash") &&
      AddExtension(cert.get(), NID_subject_alt_name, AltNames(host)) &&
      X509_sign(cert.get(), key.get(), EVP_sha256()) > 0;
  if (!ok) return fail("signing");
  const std::string key_pem = Pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  const std::string cert_pem = Pem([&](BIO* b) { return PEM_write_bio_X509(b, cert.get()); });
  if (key_pem.empty() || cert_pem.empty()) return fail("PEM");
  // The key first: a certificate without its key is never left to be taken for a pair.
  if (absl::Status s = WriteNoFollow(files.key, key_pem, 0600); !s.ok()) return s;
  return WriteNoFollow(files.cert, cert_pem, 0644);
}

}  // namespace weft::runtime
