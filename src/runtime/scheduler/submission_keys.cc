#include "runtime/scheduler/submission_keys.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "fmt/format.h"

namespace weft::runtime {

namespace {
constexpr std::string_view kPrefix = "submit:";
constexpr size_t kMaxKey = 128;
}  // namespace

absl::Status CheckSubmissionKey(std::string_view key) {
  const bool ok = !key.empty() && key.size() <= kMaxKey && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError("Submit: idempotency_key must be 1 to 128 characters of [A-Za-z0-9._-]");
}

uint64_t WorkloadDigest(std::string_view workload_json) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : workload_json) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

absl::Status SubmissionKeys::Load(const std::map<std::string, std::string>& meta) {
  for (auto it = meta.lower_bound(std::string(kPrefix)); it != meta.end() && it->first.starts_with(kPrefix); ++it) {
    std::istringstream in(it->second);
    SubmittedIds ids;
    if (!(in >> ids.first >> ids.count >> ids.digest)) {
      return absl::DataLossError(fmt::format("the journal's submission key {} is damaged", it->first));
    }
    keys_[it->first.substr(kPrefix.size())] = ids;
  }
  return absl::OkStatus();
}

std::optional<SubmittedIds> SubmissionKeys::Find(std::string_view key) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

std::string SubmissionKeys::MetaKey(std::string_view key) { return fmt::format("{}{}", kPrefix, key); }

std::string SubmissionKeys::MetaValue(const SubmittedIds& ids) {
  return fmt::format("{} {} {}", ids.first, ids.count, ids.digest);
}

}  // namespace weft::runtime
