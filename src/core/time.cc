#include "core/time.h"

#include <cmath>

#include "fmt/format.h"

namespace weft {

absl::StatusOr<TimeUs> SecondsToUs(double seconds) {
  if (!std::isfinite(seconds)) {
    return absl::InvalidArgumentError("time is not a finite number");
  }
  if (std::fabs(seconds) > kMaxSeconds) {
    return absl::InvalidArgumentError(
        fmt::format("time {} s is out of range (at most {} s)", seconds, kMaxSeconds));
  }
  return static_cast<TimeUs>(std::llround(seconds * 1e6));
}

std::string FormatSeconds(TimeUs us) {
  // Integer arithmetic keeps the output exact and identical on every platform.
  const bool negative = us < 0;
  const uint64_t magnitude =
      negative ? static_cast<uint64_t>(-(us + 1)) + 1 : static_cast<uint64_t>(us);
  return fmt::format("{}{}.{:06d}", negative ? "-" : "", magnitude / 1'000'000,
                         magnitude % 1'000'000);
}

}  // namespace weft
