#include "trace/json_fields.h"

#include "core/status.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fmt/format.h"

namespace weft {

using nlohmann::json;

absl::Status FieldReader::Error(std::string_view field, std::string_view message) const {
  return absl::InvalidArgumentError(
      fmt::format("{}{}\"{}\" {}", where_, where_.empty() ? "" : ": ", field, message));
}

absl::Status FieldReader::CheckKnownKeys(const json& obj, std::initializer_list<std::string_view> known,
                                         std::string_view field) const {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      if (field.empty()) return Error(key, "is not a known field");
      return Error(field, fmt::format("has unknown field \"{}\"", key));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> FieldReader::Count(const json& obj, std::string_view key, uint64_t max) const {
  const std::string k(key);
  if (!obj.contains(k)) return Error(key, "is missing");
  const json& v = obj[k];
  if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 1) ||
      (v.is_number_unsigned() && v.get<uint64_t>() < 1)) {
    return Error(key, fmt::format("must be a whole number >= 1, not {}", v.dump()));
  }
  if (v.get<uint64_t>() > max) {
    return Error(key, fmt::format("is {}, more than weft can hold (at most {})", v.dump(), max));
  }
  return v.get<uint64_t>();
}

absl::StatusOr<uint64_t> FieldReader::OptionalCount(const json& obj, std::string_view key, uint64_t dflt,
                                                    uint64_t max) const {
  if (!obj.contains(std::string(key))) return dflt;
  return Count(obj, key, max);
}

absl::StatusOr<int> FieldReader::Integer(const json& obj, std::string_view key) const {
  const json& v = obj[std::string(key)];
  if (!v.is_number_integer() || v.get<int64_t>() < std::numeric_limits<int>::min() ||
      v.get<int64_t>() > std::numeric_limits<int>::max()) {
    return Error(key, fmt::format("must be a whole number, not {}", v.dump()));
  }
  return static_cast<int>(v.get<int64_t>());
}

absl::StatusOr<double> FieldReader::PositiveNumber(const json& obj, std::string_view key,
                                                   std::string_view field) const {
  const std::string_view name = field.empty() ? key : field;
  if (!obj.contains(std::string(key))) return Error(name, fmt::format("needs \"{}\"", key));
  const json& v = obj[std::string(key)];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0) {
    const std::string what = field.empty() ? "must be" : fmt::format("\"{}\" must be", key);
    return Error(name, fmt::format("{} a number > 0, not {}", what, v.dump()));
  }
  return v.get<double>();
}

absl::StatusOr<TimeUs> FieldReader::PositiveDurationValue(const json& v, std::string_view field) const {
  if (!v.is_number()) return Error(field, fmt::format("must be seconds (a number), not {}", v.dump()));
  const double seconds = v.get<double>();
  if (!std::isfinite(seconds) || seconds <= 0) {
    return Error(field, fmt::format("must be seconds > 0, not {}", v.dump()));
  }
  auto us = SecondsToUs(seconds);
  if (!us.ok()) return Error(field, StatusMessage(us.status()));
  if (*us < 1) return Error(field, fmt::format("{} s rounds to 0 microseconds", v.dump()));
  return *us;
}

absl::StatusOr<TimeUs> FieldReader::PositiveDuration(const json& obj, std::string_view key) const {
  return PositiveDurationValue(obj[std::string(key)], key);
}

absl::StatusOr<TimeUs> FieldReader::NonNegativeDuration(const json& obj, std::string_view key) const {
  const json& v = obj[std::string(key)];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    return Error(key, fmt::format("must be seconds >= 0, not {}", v.dump()));
  }
  auto us = SecondsToUs(v.get<double>());
  if (!us.ok()) return Error(key, StatusMessage(us.status()));
  return *us;
}

}  // namespace weft
