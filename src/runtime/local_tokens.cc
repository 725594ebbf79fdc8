#include "runtime/local_tokens.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "fmt/format.h"
#include "runtime/auth.h"
#include "runtime/owned_files.h"

namespace weft::runtime {

namespace fs = std::filesystem;

namespace {

constexpr size_t kTokenBytes = 32;

absl::StatusOr<std::string> RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0) return absl::InternalError("getrandom failed");
    got += static_cast<size_t>(n);
  }
  std::string hex;
  for (const char c : raw) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return hex;
}

// WritePrivate writes `text` to `path` with mode 0600 through a temporary
// file: link() publishes it only if `path` does not exist yet (exclusive),
// rename() replaces it.
absl::Status WritePrivate(const fs::path& path, const std::string& text, bool exclusive) {
  const fs::path tmp = path.string() + fmt::format(".tmp{}", getpid());
  unlink(tmp.c_str());  // a leftover of a crash (or a planted link: never followed)
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InvalidArgumentError(fmt::format("cannot write {}: {}", path.string(), strerror(errno)));
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
  close(fd);
  const int published = !written ? -1 : exclusive ? link(tmp.c_str(), path.c_str()) : rename(tmp.c_str(), path.c_str());
  const int error = errno;
  unlink(tmp.c_str());  // after link (or a failure); a no-op after rename
  if (published == 0) return absl::OkStatus();
  if (exclusive && written && error == EEXIST) return absl::AlreadyExistsError(path.string());
  return absl::InvalidArgumentError(fmt::format("cannot write {}: {}", path.string(), strerror(error)));
}

}  // namespace

// EntryName: an address as a file name: '%' and '/' (a unix:PATH address
// has slashes) are written %25 and %2F.
std::string EntryName(std::string_view address) {
  if (address.empty() || address == "." || address == "..") return "";
  std::string name;
  for (const char c : address) {
    if (c == '%') {
      name += "%25";
    } else if (c == '/') {
      name += "%2F";
    } else {
      name += c;
    }
  }
  return name.size() > 255 ? "" : name;  // longer than a file name may be
}

std::string AddressOfEntry(std::string_view name) {
  std::string address;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '%' && name.substr(i, 3) == "%2F") {
      address += '/';
      i += 2;
    } else if (name[i] == '%' && name.substr(i, 3) == "%25") {
      address += '%';
      i += 2;
    } else {
      address += name[i];
    }
  }
  return address;
}

namespace {

// RemoveEntries removes the index entries whose token file `drop` says to.
template <typename Drop>
void RemoveEntries(Drop&& drop) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(TokenIndexDir(), ec)) {
    if (entry.path().filename().string().find(".tmp") != std::string::npos) continue;  // being written
    std::ifstream in(entry.path());
    std::string named;
    std::getline(in, named);
    if (drop(named)) fs::remove(entry.path(), ec);
  }
}

}  // namespace

absl::StatusOr<std::string> EnsureTokenFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) {
    absl::StatusOr<std::string> token = RandomHex(kTokenBytes);
    if (!token.ok()) return token.status();
    const absl::Status s = WritePrivate(path, *token + "\n", /*exclusive=*/true);
    if (s.ok()) return token;
    if (!absl::IsAlreadyExists(s)) return s;  // else another `up` made it first: read theirs
  }
  // A token another user planted (or can rewrite) would be theirs to use.
  if (absl::Status s = CheckOwned(path, "token file"); !s.ok()) return s;
  return ReadTokenFile(path.string());
}

fs::path TokenIndexDir() { return StateHome() / "weft" / "clusters"; }

absl::Status RememberToken(std::string_view address, const fs::path& token_file, const fs::path& tls_ca) {
  const std::string name = EntryName(address);
  if (name.empty()) return absl::InvalidArgumentError(fmt::format("bad scheduler address {}", address));
  const fs::path dir = TokenIndexDir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Only weft/ and weft/clusters/ are ours to restrict, not the user's ~/.local/state.
  if (!ec) fs::permissions(dir.parent_path(), fs::perms::owner_all, ec);
  if (!ec) fs::permissions(dir, fs::perms::owner_all, ec);
  if (ec) return absl::InvalidArgumentError(fmt::format("cannot make {}: {}", dir.string(), ec.message()));
  // Entries of clusters removed without `cluster down` go, so the index stays small.
  RemoveEntries([](const std::string& named) { return named.empty() || !fs::exists(named); });
  const std::string ca_line = tls_ca.empty() ? "" : tls_ca.string() + "\n";
  return WritePrivate(dir / name, token_file.string() + "\n" + ca_line, /*exclusive=*/false);
}

void ForgetTokens(const fs::path& token_file) {
  RemoveEntries([&](const std::string& named) { return named == token_file.string(); });
}

std::string TokenFileFor(std::string_view address) {
  const std::string name = EntryName(address);
  if (name.empty()) return "";
  std::ifstream entry(TokenIndexDir() / name);
  std::string path;
  if (!std::getline(entry, path) || path.empty() || !fs::exists(path)) return "";
  return path;
}

std::string TlsCaFor(std::string_view address) {
  const std::string name = EntryName(address);
  if (name.empty()) return "";
  std::ifstream entry(TokenIndexDir() / name);
  std::string token, ca;
  if (!std::getline(entry, token) || !std::getline(entry, ca) || ca.empty() || !fs::exists(ca)) return "";
  return ca;
}

}  // namespace weft::runtime
