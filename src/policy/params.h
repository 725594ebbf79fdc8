// File: policy/params.h
//
// Policy parameters: each policy declares its parameters (name, type,
// default, meaning, allowed range); `--param k=v` strings are parsed against
// those declarations into a Params object the policy reads when it is built.
// An unknown key, a malformed value or one out of range is InvalidArgument with
// a message that names the key. Plain values; thread-safe to copy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace weft::policy {

enum class ParamType : uint8_t { kInt, kDouble, kBool, kChoice };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kDouble;
  std::string default_value;  // as it would be written on the command line
  std::string help;
  double min = -1e300;  // inclusive bounds for kInt and kDouble
  double max = 1e300;
  std::vector<std::string> choices;  // for kChoice

  std::string TypeName() const;
};

class Params {
 public:
  // Parse builds Params from `k=v` strings: every spec gets its default, then
  // each assignment overrides one. Later assignments of a key win.
  static absl::StatusOr<Params> Parse(const std::vector<ParamSpec>& specs,
                                      const std::vector<std::string>& assignments);

  // Typed getters; the key must be declared with that type (a policy bug
  // otherwise, reported by an exception caught at the command line).
  int64_t Int(std::string_view key) const;
  double Double(std::string_view key) const;
  bool Bool(std::string_view key) const;
  const std::string& Choice(std::string_view key) const;

  // All values as strings, sorted by key (for summaries).
  const std::map<std::string, std::string, std::less<>>& values() const { return text_; }

 private:
  const std::string& Raw(std::string_view key, ParamType type) const;
  std::map<std::string, std::string, std::less<>> text_;
  std::map<std::string, ParamType, std::less<>> types_;
};

}  // namespace weft::policy
