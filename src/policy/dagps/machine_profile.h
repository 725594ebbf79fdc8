// File: policy/dagps/machine_profile.h
//
// MachineProfile: one machine of DAGPS's resource-time space
// (001_a7e14c78d79bdb00.txt, section 4.2): its capacity and what is placed on
// it over time, kept as a step function of usage (a sorted vector of
// breakpoints, usage 0 before the first and after the last). The queries are
// the per-machine halves of the space's fit search (space.h):
//   - Earliest / LatestEnd: the exact earliest start (latest end) of a box of
//     a given demand and duration, found by walking the steps;
//   - FitRuns: the maximal intervals of time in a window during which the
//     demand fits beside what is placed (a box fits exactly when it lies
//     inside one run), which the space indexes across machines.
// Plain value type; no I/O.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "core/time.h"
#include "model/resources.h"

namespace weft::policy::dagps {

// FitsWith: used + demand <= capacity in every resource.
inline bool FitsWith(const Resources& used, const Resources& demand, const Resources& capacity) {
  for (int r = 0; r < kNumResources; ++r) {
    const Resource res = static_cast<Resource>(r);
    if (used.micro(res) + demand.micro(res) > capacity.micro(res)) return false;
  }
  return true;
}

class MachineProfile {
 public:
  static constexpr TimeUs kNever = std::numeric_limits<TimeUs>::max();
  static constexpr TimeUs kNeverLow = std::numeric_limits<TimeUs>::min();

  explicit MachineProfile(Resources capacity) : capacity_(capacity) {}

  const Resources& capacity() const { return capacity_; }
  bool empty() const { return steps_.empty(); }
  // The machine is empty before first_change() and from last_change() on
  // (both only when !empty()).
  TimeUs first_change() const { return steps_.front().t; }
  TimeUs last_change() const { return steps_.back().t; }

  // Earliest start >= t0 of a box (demand, d); kNever when it would be >= limit.
  TimeUs Earliest(const Resources& demand, TimeUs d, TimeUs t0, TimeUs limit) const;
  // Latest end <= t1 of a box (demand, d); kNeverLow when it would be <= limit.
  TimeUs LatestEnd(const Resources& demand, TimeUs d, TimeUs t1, TimeUs limit) const;
  // A run [a, b) of time during which a demand fits; a may be kNeverLow
  // (since forever), b kNever (for ever after).
  struct Run {
    TimeUs a;
    TimeUs b;
  };
  // FitRuns appends to `out` the maximal runs inside [from, to) (from may be
  // kNeverLow, to kNever), in time order, cut at the window's ends.
  void FitRuns(const Resources& demand, TimeUs from, TimeUs to, std::vector<Run>& out) const;

  // Place adds a box. Precondition: it fits (not checked).
  void Place(TimeUs start, TimeUs duration, const Resources& demand);
  Resources UsageAt(TimeUs t) const;
  bool WithinCapacity() const;
  // Breakpoints kept (for tests: none where the usage does not change).
  size_t num_steps() const { return steps_.size(); }

 private:
  struct Step {
    TimeUs t;
    Resources used;  // from t until the next step's t
  };
  // Segment k (0..n) of the step function covers [steps_[k-1].t, steps_[k].t),
  // segment 0 starting at -infinity and segment n running to +infinity.
  const Resources& SegmentUsage(size_t k) const;

  Resources capacity_;
  std::vector<Step> steps_;  // sorted by t
};

}  // namespace weft::policy::dagps
