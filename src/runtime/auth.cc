#include "runtime/auth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace weft::runtime {

namespace {
constexpr size_t kMaxTokenBytes = 4096;
constexpr std::string_view kBearer = "Bearer ";
}  // namespace

absl::Status CheckPrivateFile(const std::string& path, std::string_view what) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return absl::InvalidArgumentError(fmt::format("cannot stat {} {}", what, path));
  if ((st.st_mode & S_IRWXO) != 0) {
    // Anyone who reads a token (or a TLS key) can run commands as the nodes' user.
    return absl::InvalidArgumentError(fmt::format(
        "{} {} is accessible to other users (mode {:o}): chmod o-rwx {} (0600 is best)", what, path,
        st.st_mode & 07777, path));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(fmt::format("cannot read token file {}", path));
  if (absl::Status s = CheckPrivateFile(path, "token file"); !s.ok()) return s;
  std::ostringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  if (token.size() > kMaxTokenBytes) return absl::InvalidArgumentError(fmt::format("token file {} is over 4 KiB", path));
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return absl::InvalidArgumentError(fmt::format("token file {} is empty", path));
  token = token.substr(first, token.find_last_not_of(" \t\r\n") - first + 1);
  return token;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of the longer input is looked at whatever the others hold.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

bool IsLoopback(std::string_view address) {
  std::string host(address);
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) return false;
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  if (host == "localhost") return true;
  // Only a literal address is judged: any other name (127.0.0.1.example)
  // would go to DNS and could resolve anywhere.
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

bool IsUnixAddress(std::string_view address) { return address.starts_with("unix:"); }

absl::Status CheckListen(std::string_view address, bool has_token) {
  if (IsLoopback(address) || IsUnixAddress(address) || has_token) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("refusing to listen on {} without authentication: give --token-file (or listen on 127.0.0.1)",
                  address));
}

grpc::Status CheckToken(const grpc::ServerContextBase& context, const std::string& token) {
  if (token.empty()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it != metadata.end()) {
    const std::string_view value(it->second.data(), it->second.size());
    if (value.starts_with(kBearer) && ConstantTimeEquals(value.substr(kBearer.size()), token)) return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "unauthenticated: missing or wrong token (weft finds the token of a `weft cluster up` cluster "
                      "for the user who started it; anyone else needs read access to DIR/token and --token-file)");
}

void AddToken(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata("authorization", std::string(kBearer) + token);
}

}  // namespace weft::runtime
