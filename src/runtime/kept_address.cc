#include "runtime/kept_address.h"

#include <fstream>

#include "fmt/format.h"

namespace weft::runtime {

bool AsksForAnyPort(const std::string& address) {
  if (address.starts_with("unix:")) return false;  // a socket path has no port
  const size_t colon = address.rfind(':');
  return colon != std::string::npos && address.substr(colon + 1) == "0";
}

std::string ListenAddress(const std::string& requested, const std::filesystem::path& kept) {
  if (!AsksForAnyPort(requested)) return requested;
  std::ifstream in(kept);
  std::string for_request, chosen;
  if (!(in >> for_request >> chosen) || for_request != requested || chosen.empty()) return requested;
  return chosen;
}

absl::Status KeepAddress(const std::string& requested, const std::string& chosen, const std::filesystem::path& kept) {
  if (!AsksForAnyPort(requested)) return absl::OkStatus();
  const std::filesystem::path tmp = kept.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << requested << " " << chosen << "\n";
    out.flush();
    if (!out) return absl::FailedPreconditionError(fmt::format("cannot write {}", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, kept, ec);
  if (ec) return absl::FailedPreconditionError(fmt::format("cannot write {}: {}", kept.string(), ec.message()));
  return absl::OkStatus();
}

}  // namespace weft::runtime
