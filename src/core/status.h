// File: core/status.h
//
// weft's error convention: fallible boundaries (parsing, config, RPC, files)
// return absl::Status or absl::StatusOr<T>. These macros propagate them; Debian
// 12's abseil predates abseil's own versions. CHECK-style aborts are for
// internal invariants only, never for bad input.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <string_view>

namespace weft {

// StatusMessage returns a status's message as a std::string_view (Debian's
// abseil has its own string_view type, which std APIs and fmt do not take).
inline std::string_view StatusMessage(const absl::Status& s) {
  return {s.message().data(), s.message().size()};
}

}  // namespace weft

#define WEFT_STATUS_CONCAT_INNER_(a, b) a##b
#define WEFT_STATUS_CONCAT_(a, b) WEFT_STATUS_CONCAT_INNER_(a, b)

// RETURN_IF_ERROR(expr): returns the status of `expr` from the enclosing
// function when it is not ok.
#define RETURN_IF_ERROR(expr)                         \
  do {                                                \
    const ::absl::Status weft_status_ = (expr);       \
    if (!weft_status_.ok()) return weft_status_;      \
  } while (false)

// ASSIGN_OR_RETURN(lhs, expr): evaluates the StatusOr `expr`; on error returns
// its status, else moves its value into `lhs` (which may be a declaration).
#define ASSIGN_OR_RETURN(lhs, expr)                                          \
  WEFT_ASSIGN_OR_RETURN_IMPL_(WEFT_STATUS_CONCAT_(weft_statusor_, __LINE__), \
                              lhs, expr)
#define WEFT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
