#include "trace/alibaba_task_name.h"

#include <limits>

namespace weft {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// ReadNumber consumes the decimal number at the front of `s` (at least one
// digit, at most 32 bits) into `out`.
bool ReadNumber(std::string_view& s, uint32_t& out) {
  size_t n = 0;
  uint64_t value = 0;
  while (n < s.size() && IsDigit(s[n])) {
    value = value * 10 + static_cast<uint64_t>(s[n] - '0');
    if (value > std::numeric_limits<uint32_t>::max()) return false;
    ++n;
  }
  if (n == 0) return false;
  out = static_cast<uint32_t>(value);
  s.remove_prefix(n);
  return true;
}

}  // namespace

std::optional<AlibabaTaskName> ParseAlibabaTaskName(std::string_view name) {
  constexpr std::string_view kIndependentPrefix = "task_";
  if (name.size() > kIndependentPrefix.size() && name.substr(0, kIndependentPrefix.size()) == kIndependentPrefix) {
    return AlibabaTaskName{.independent = true};
  }
  size_t letters = 0;
  while (letters < name.size() && IsLetter(name[letters])) ++letters;
  if (letters == 0) return std::nullopt;
  std::string_view rest = name.substr(letters);
  AlibabaTaskName parsed;
  if (!ReadNumber(rest, parsed.id)) return std::nullopt;
  while (!rest.empty()) {
    if (rest.front() != '_') return std::nullopt;
    rest.remove_prefix(1);
    uint32_t parent = 0;
    if (!ReadNumber(rest, parent)) return std::nullopt;  // "J30_4_" or "R4_2_Stg9"
    parsed.parents.push_back(parent);
  }
  return parsed;
}

}  // namespace weft
