#include "model/resources.h"

#include <cmath>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "fmt/ranges.h"

namespace weft {

std::optional<Resource> ResourceByName(std::string_view name) {
  for (int r = 0; r < kNumResources; ++r) {
    if (kResourceNames[r] == name) return static_cast<Resource>(r);
  }
  return std::nullopt;
}

absl::StatusOr<Resources> Resources::FromUnits(const std::array<double, kNumResources>& units) {
  // 1e12 units in micro-units is 1e18, still inside int64 with room for sums.
  constexpr double kMaxUnits = 1e12;
  Resources out;
  for (int r = 0; r < kNumResources; ++r) {
    const double u = units[r];
    if (!std::isfinite(u) || u < 0 || u > kMaxUnits) {
      return absl::InvalidArgumentError(
          fmt::format("{} must be a finite number between 0 and {}", kResourceNames[r], kMaxUnits));
    }
    out.v_[r] = std::llround(u * kMicroUnits);
  }
  return out;
}

std::string Resources::ToString() const {
  std::vector<std::string> parts;
  for (int r = 0; r < kNumResources; ++r) {
    if (v_[r] != 0) parts.push_back(fmt::format("{}={}", kResourceNames[r], units(static_cast<Resource>(r))));
  }
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace weft
