// File: core/time.h
//
// Time inside weft is an integer count of microseconds (TimeUs), for instants
// and durations alike. Floating seconds appear only at the edges: workload
// files and result files. Conversions here round to the nearest microsecond
// and refuse values that are not finite or would overflow. Thread-safe: pure
// functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/statusor.h"

namespace weft {

using TimeUs = int64_t;

inline constexpr TimeUs kUsPerSecond = 1'000'000;
// The largest representable instant; used as "never".
inline constexpr TimeUs kTimeInfinite = std::numeric_limits<TimeUs>::max();
// The largest number of seconds a file may give (about 292 millennia would fit;
// we keep a wide margin so sums of many durations cannot overflow either).
inline constexpr double kMaxSeconds = 1e12;

// SecondsToUs converts decimal seconds to microseconds, rounding half away
// from zero. Fails with InvalidArgument for NaN, infinities and |s| >
// kMaxSeconds.
absl::StatusOr<TimeUs> SecondsToUs(double seconds);

// UsToSeconds converts microseconds to (possibly inexact) seconds, for
// reporting.
inline double UsToSeconds(TimeUs us) { return static_cast<double>(us) / 1e6; }

// FormatSeconds renders an instant or duration as seconds with exactly six
// decimals ("12.000250"), exact for every TimeUs (no floating point involved).
std::string FormatSeconds(TimeUs us);

}  // namespace weft
