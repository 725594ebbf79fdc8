// File: model/names.cc
#include "model/names.h"

#include <array>

#include "fmt/format.h"

namespace weft {
namespace {

constexpr std::array<std::string_view, 3> kPlaceholders = {"{job}", "{stage}", "{task}"};

// ForEachPart walks `command` once, left to right, calling `text(piece)` for
// literal text and `placeholder(k)` for kPlaceholders[k]. ExpandCommand and
// the length check share it, so they always agree on what is substituted.
template <typename Text, typename Placeholder>
void ForEachPart(std::string_view command, Text&& text, Placeholder&& placeholder) {
  size_t literal = 0;
  for (size_t at = command.find('{'); at != std::string_view::npos; at = command.find('{', at)) {
    size_t k = 0;
    while (k < kPlaceholders.size() && !command.substr(at).starts_with(kPlaceholders[k])) ++k;
    if (k == kPlaceholders.size()) {
      ++at;
      continue;
    }
    text(command.substr(literal, at - literal));
    placeholder(k);
    at += kPlaceholders[k].size();
    literal = at;
  }
  text(command.substr(literal));
}

size_t Digits(uint64_t n) { return fmt::formatted_size("{}", n); }

absl::Status CheckNoControl(std::string_view what, std::string_view field, std::string_view value) {
  if (!HasControlCharacter(value)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("{}: \"{}\" holds a control character (\"{}\"), which names may not", what, field,
                  EscapeForDisplay(value)));
}

// CheckName: `value` is a name no longer than kMaxNameBytes without control
// characters. The message quotes only the start of a long name, so that it
// stays one short line.
absl::Status CheckName(std::string_view what, std::string_view field, std::string_view value) {
  if (value.size() > kMaxNameBytes) {
    return absl::InvalidArgumentError(fmt::format("{}: \"{}\" is {} bytes (\"{}\"), over the {} a name may have", what,
                                                  field, value.size(), NameForDisplay(value), kMaxNameBytes));
  }
  return CheckNoControl(what, field, value);
}

absl::Status CheckCommand(const Job& job, const Stage& stage, std::string_view where) {
  if (stage.command.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(fmt::format("{}: \"command\" holds a NUL character", where));
  }
  std::array<uint64_t, 3> uses{};
  ForEachPart(stage.command, [](std::string_view) {}, [&](size_t k) { ++uses[k]; });
  const std::array<std::string_view, 2> names = {job.name, stage.name};
  const std::array<std::string_view, 2> fields = {"job name", "stage name"};
  for (size_t k = 0; k < names.size(); ++k) {
    if (uses[k] == 0 || IsShellSafeName(names[k])) continue;
    return absl::InvalidArgumentError(fmt::format(
        "{}: \"command\" substitutes {} but the {} \"{}\" is not 1 to {} characters of [A-Za-z0-9._+:@,%#-] "
        "(not starting with '-' or '#'), so the shell could read it as code",
        where, kPlaceholders[k], fields[k], EscapeForDisplay(names[k]), kMaxSubstitutedName));
  }
  // The longest expansion: every {task} as the highest index.
  uint64_t placeholder_bytes = 0;
  for (size_t k = 0; k < kPlaceholders.size(); ++k) placeholder_bytes += uses[k] * kPlaceholders[k].size();
  const uint64_t expanded = stage.command.size() - placeholder_bytes + uses[0] * job.name.size() +
                            uses[1] * stage.name.size() + uses[2] * Digits(stage.num_tasks > 0 ? stage.num_tasks - 1 : 0);
  if (expanded > kMaxCommandBytes) {
    return absl::InvalidArgumentError(
        fmt::format("{}: \"command\" is {} bytes once the names are substituted, over the {} bytes one exec "
                    "argument may hold",
                    where, expanded, kMaxCommandBytes));
  }
  return absl::OkStatus();
}

}  // namespace

bool HasControlCharacter(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    // U+0080..U+009F are 0xC2 0x80..0x9F in UTF-8.
    if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9f &&
        static_cast<unsigned char>(s[i + 1]) >= 0x80) {
      return true;
    }
  }
  return false;
}

bool IsShellSafeName(std::string_view name) {
  if (name.empty() || name.size() > kMaxSubstitutedName || name.front() == '-' || name.front() == '#') return false;
  for (char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '+' || c == ':' || c == '@' || c == ',' || c == '%' || c == '#' || c == '-';
    if (!safe) return false;
  }
  return true;
}

absl::Status ValidateNames(const Workload& w) {
  for (const Machine& m : w.cluster.machines()) {
    if (absl::Status s = CheckName("cluster", "machines.name", m.name); !s.ok()) return s;
  }
  for (const std::string& user : w.users) {
    if (absl::Status s = CheckName("a job", "user", user); !s.ok()) return s;
  }
  for (const Job& job : w.jobs) {
    const std::string where = fmt::format("job \"{}\"", NameForDisplay(job.name));
    if (absl::Status s = CheckName(where, "name", job.name); !s.ok()) return s;
    for (const Stage& stage : job.stages) {
      const std::string stage_where = fmt::format("{} stage \"{}\"", where, NameForDisplay(stage.name));
      if (absl::Status s = CheckName(stage_where, "name", stage.name); !s.ok()) return s;
      if (stage.command.empty()) continue;
      if (absl::Status s = CheckCommand(job, stage, stage_where); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

std::string NameForDisplay(std::string_view name) {
  constexpr size_t kShown = 64;
  if (name.size() <= kShown) return EscapeForDisplay(name);
  // Cut at a character's start, not inside a UTF-8 sequence.
  size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) --cut;
  return EscapeForDisplay(name.substr(0, cut)) + "...";
}

std::string ExpandCommand(std::string_view command, std::string_view job, std::string_view stage, uint32_t task) {
  std::string out;
  out.reserve(command.size());
  const std::string index = std::to_string(task);
  const std::array<std::string_view, 3> values = {job, stage, index};
  ForEachPart(command, [&](std::string_view piece) { out += piece; }, [&](size_t k) { out += values[k]; });
  return out;
}

size_t FirstInvalidUtf8(std::string_view s) {
  // Table 3-7 of the Unicode standard: the well-formed byte sequences.
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      len = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      len = 3;
      if (b0 == 0xe0) lo = 0xa0;
      if (b0 == 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      len = 4;
      if (b0 == 0xf0) lo = 0x90;
      if (b0 == 0xf4) hi = 0x8f;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

std::string EscapeForDisplay(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace weft
