// File: trace/json_fields.h
//
// FieldReader: typed access to the fields of one JSON object of a workload,
// producing error messages that name where the field is ("job "x" stage
// "y"") and which field it is. Shared by the workload readers so that every
// message has the same shape:
//   job "q3-0" stage "agg": "tasks" must be a whole number >= 1
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/time.h"
#include "nlohmann/json.hpp"

namespace weft {

class FieldReader {
 public:
  // `where` prefixes every message; empty for the top level of the file.
  explicit FieldReader(std::string where) : where_(std::move(where)) {}

  // Error builds InvalidArgument "<where>: "<field>" <message>".
  absl::Status Error(std::string_view field, std::string_view message) const;

  // CheckKnownKeys fails on the first key of `obj` not in `known`. `field`
  // names the enclosing field for nested objects (e.g. "phases").
  absl::Status CheckKnownKeys(const nlohmann::json& obj, std::initializer_list<std::string_view> known,
                              std::string_view field = "") const;

  // Count reads a required whole number in [1, max].
  absl::StatusOr<uint64_t> Count(const nlohmann::json& obj, std::string_view key, uint64_t max) const;
  // OptionalCount is Count with a default when the key is absent.
  absl::StatusOr<uint64_t> OptionalCount(const nlohmann::json& obj, std::string_view key, uint64_t dflt,
                                         uint64_t max) const;
  // Integer reads a whole number that fits an int.
  absl::StatusOr<int> Integer(const nlohmann::json& obj, std::string_view key) const;
  // PositiveNumber reads a finite number > 0. `field` overrides the name used
  // in messages (for keys nested in a list, e.g. "phases").
  absl::StatusOr<double> PositiveNumber(const nlohmann::json& obj, std::string_view key,
                                        std::string_view field = "") const;
  // PositiveDuration reads seconds > 0 that round to at least 1 us.
  absl::StatusOr<TimeUs> PositiveDuration(const nlohmann::json& obj, std::string_view key) const;
  absl::StatusOr<TimeUs> PositiveDurationValue(const nlohmann::json& value, std::string_view field) const;
  // NonNegativeDuration reads seconds >= 0.
  absl::StatusOr<TimeUs> NonNegativeDuration(const nlohmann::json& obj, std::string_view key) const;

 private:
  std::string where_;
};

}  // namespace weft
