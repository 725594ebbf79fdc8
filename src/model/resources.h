// File: model/resources.h
//
// Resources is the small fixed vector of resource amounts used for machine
// capacities, task demands and usage. Amounts are stored as integer
// micro-units (1e-6 of a core, a GB or a MB/s) so that adding and removing
// reservations is exact: a machine that is full stays exactly full, and the
// result never depends on the order of additions.
//
// Adding a resource (e.g. gpu) is one line in kResourceNames plus one enum
// value. Plain value type; thread-safe to copy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace weft {

enum Resource : int { kCpu = 0, kMem = 1, kDisk = 2, kNet = 3, kNumResources = 4 };

// Names as they appear in workload and result files, indexed by Resource.
inline constexpr std::array<std::string_view, kNumResources> kResourceNames = {"cpu", "mem",
                                                                              "disk", "net"};

// ResourceByName returns the resource called `name`, or nullopt.
std::optional<Resource> ResourceByName(std::string_view name);

// ResourceMask: a set of resources, bit r for resource r (e.g. the resources
// a policy may overbook).
using ResourceMask = uint8_t;
inline constexpr ResourceMask MaskOf(Resource r) { return static_cast<ResourceMask>(1u << r); }
inline constexpr bool InMask(ResourceMask mask, Resource r) { return (mask & MaskOf(r)) != 0; }
inline constexpr ResourceMask kAllResources = (1u << kNumResources) - 1;

// One unit of a resource, in the micro-units Resources stores.
inline constexpr int64_t kMicroUnits = 1'000'000;

class Resources {
 public:
  constexpr Resources() = default;

  // FromUnits builds a vector from amounts in whole units (cores, GB, MB/s).
  // Fails for negative, non-finite or absurdly large amounts.
  static absl::StatusOr<Resources> FromUnits(const std::array<double, kNumResources>& units);

  int64_t micro(Resource r) const { return v_[r]; }
  void set_micro(Resource r, int64_t value) { v_[r] = value; }
  double units(Resource r) const { return static_cast<double>(v_[r]) / kMicroUnits; }
  // micros: every component, as a key where an order or a hash is needed
  // (Resources has neither: FitsIn is only a partial order); FromMicros is
  // its inverse.
  const std::array<int64_t, kNumResources>& micros() const { return v_; }
  static Resources FromMicros(const std::array<int64_t, kNumResources>& micros) {
    Resources r;
    r.v_ = micros;
    return r;
  }

  // Inline: the engine calls these several times per task.
  bool IsZero() const {
    for (int64_t x : v_) {
      if (x != 0) return false;
    }
    return true;
  }
  // FitsIn: every component is <= the other's.
  bool FitsIn(const Resources& capacity) const {
    for (int r = 0; r < kNumResources; ++r) {
      if (v_[r] > capacity.v_[r]) return false;
    }
    return true;
  }
  // FitsInExcept: every component outside `except` is <= the other's.
  bool FitsInExcept(const Resources& capacity, ResourceMask except) const {
    for (int r = 0; r < kNumResources; ++r) {
      if (!InMask(except, static_cast<Resource>(r)) && v_[r] > capacity.v_[r]) return false;
    }
    return true;
  }

  Resources& operator+=(const Resources& o) {
    for (int r = 0; r < kNumResources; ++r) v_[r] += o.v_[r];
    return *this;
  }
  Resources& operator-=(const Resources& o) {
    for (int r = 0; r < kNumResources; ++r) v_[r] -= o.v_[r];
    return *this;
  }
  friend Resources operator+(Resources a, const Resources& b) { return a += b; }
  friend Resources operator-(Resources a, const Resources& b) { return a -= b; }
  friend bool operator==(const Resources&, const Resources&) = default;

  // ToString renders "cpu=1 mem=2.5" with zero components left out.
  std::string ToString() const;

 private:
  std::array<int64_t, kNumResources> v_{};
};

}  // namespace weft
