#include "policy/params.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace weft::policy {
namespace {

bool ParseDouble(std::string_view s, double& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

bool ParseInt(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool ParseBool(std::string_view s, bool& out) {
  if (s == "true" || s == "on" || s == "1" || s == "yes") {
    out = true;
    return true;
  }
  if (s == "false" || s == "off" || s == "0" || s == "no") {
    out = false;
    return true;
  }
  return false;
}

// Canonical text of a value, so that summaries print "true" for "on".
absl::StatusOr<std::string> Check(const ParamSpec& spec, std::string_view value) {
  switch (spec.type) {
    case ParamType::kInt: {
      int64_t v = 0;
      if (!ParseInt(value, v)) {
        return absl::InvalidArgumentError(fmt::format("param {}: \"{}\" is not a whole number", spec.name, value));
      }
      if (static_cast<double>(v) < spec.min || static_cast<double>(v) > spec.max) {
        return absl::InvalidArgumentError(
            fmt::format("param {}: {} is outside [{}, {}]", spec.name, value, spec.min, spec.max));
      }
      return std::to_string(v);
    }
    case ParamType::kDouble: {
      double v = 0;
      if (!ParseDouble(value, v)) {
        return absl::InvalidArgumentError(fmt::format("param {}: \"{}\" is not a number", spec.name, value));
      }
      if (v < spec.min || v > spec.max) {
        return absl::InvalidArgumentError(
            fmt::format("param {}: {} is outside [{}, {}]", spec.name, value, spec.min, spec.max));
      }
      return std::string(value);
    }
    case ParamType::kBool: {
      bool v = false;
      if (!ParseBool(value, v)) {
        return absl::InvalidArgumentError(
            fmt::format("param {}: \"{}\" is not true/false (or on/off)", spec.name, value));
      }
      return std::string(v ? "true" : "false");
    }
    case ParamType::kChoice:
      for (const std::string& c : spec.choices) {
        if (c == value) return c;
      }
      return absl::InvalidArgumentError(fmt::format("param {}: \"{}\" is not one of {}", spec.name, value,
                                                    fmt::join(spec.choices, ", ")));
  }
  return absl::InternalError("unknown parameter type");
}

}  // namespace

std::string ParamSpec::TypeName() const {
  switch (type) {
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "number";
    case ParamType::kBool:
      return "bool";
    case ParamType::kChoice:
      return fmt::format("{}", fmt::join(choices, "|"));
  }
  return "?";
}

absl::StatusOr<Params> Params::Parse(const std::vector<ParamSpec>& specs,
                                     const std::vector<std::string>& assignments) {
  Params p;
  for (const ParamSpec& spec : specs) {
    auto canonical = Check(spec, spec.default_value);
    if (!canonical.ok()) return absl::InternalError(fmt::format("bad default: {}", canonical.status().ToString()));
    p.text_[spec.name] = *canonical;
    p.types_[spec.name] = spec.type;
  }
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(fmt::format("param \"{}\" must be written key=value", a));
    }
    const std::string key = a.substr(0, eq);
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& s : specs) {
      if (s.name == key) spec = &s;
    }
    if (spec == nullptr) {
      std::vector<std::string> names;
      for (const ParamSpec& s : specs) names.push_back(s.name);
      return absl::InvalidArgumentError(
          fmt::format("unknown param \"{}\" (known: {})", key, fmt::join(names, ", ")));
    }
    auto canonical = Check(*spec, std::string_view(a).substr(eq + 1));
    if (!canonical.ok()) return canonical.status();
    p.text_[key] = *canonical;
  }
  return p;
}

const std::string& Params::Raw(std::string_view key, ParamType type) const {
  auto it = text_.find(key);
  auto t = types_.find(key);
  if (it == text_.end() || t == types_.end() || t->second != type) {
    throw std::logic_error(fmt::format("policy reads undeclared or mistyped param \"{}\"", key));
  }
  return it->second;
}

int64_t Params::Int(std::string_view key) const {
  int64_t v = 0;
  ParseInt(Raw(key, ParamType::kInt), v);
  return v;
}

double Params::Double(std::string_view key) const {
  double v = 0;
  ParseDouble(Raw(key, ParamType::kDouble), v);
  return v;
}

bool Params::Bool(std::string_view key) const { return Raw(key, ParamType::kBool) == "true"; }

const std::string& Params::Choice(std::string_view key) const { return Raw(key, ParamType::kChoice); }

}  // namespace weft::policy
