// File: policy/dagps/space.h
//
// ResourceTimeSpace: DAGPS's virtual resource-time space (001_a7e14c78d79bdb00.txt,
// section 4.2, CreateSpace in Fig. 5): m machines, each with a
// multi-dimensional capacity, and a time axis. Tasks are placed as boxes
// (machine, [start, start + duration), demand); a box may be placed only where
// the machine's usage plus its demand stays within capacity over its whole
// interval. Time may go below 0: backward placement (PlaceTasksB) puts
// parents before children that are already placed, so a schedule's extent is
// [min_start, max_end) and its makespan the difference.
//
// Each machine keeps a step function of its usage (a sorted vector of
// breakpoints). EarliestFit first tries the hint machine (where the previous
// task went: in a filling space it usually still has room at once), then
// bounds the search by the earliest time some machine is empty (after its
// last box), then scans the machines' step functions from the hint, each scan
// stopping at the best time found so far. LatestFit is the mirror image.
// Ties go to the first machine in scan order (deterministic).
// Departure from the paper's "time and resource indexed hash map of free
// regions" (4.4): a per-machine skyline, simpler and fast enough (see
// BENCHMARKS.md).
// Plain value type: copying it clones the space (TrySubsetOrders needs that).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/time.h"
#include "model/resources.h"

namespace weft::policy::dagps {

class ResourceTimeSpace {
 public:
  struct Slot {
    uint32_t machine = 0;
    TimeUs start = 0;
  };

  explicit ResourceTimeSpace(std::vector<Resources> capacities);

  size_t num_machines() const { return machines_.size(); }
  const Resources& capacity(uint32_t m) const { return machines_[m].capacity; }
  bool empty() const { return boxes_ == 0; }
  uint64_t boxes() const { return boxes_; }
  // Extent of what is placed; both 0 when empty.
  TimeUs min_start() const { return empty() ? 0 : min_start_; }
  TimeUs max_end() const { return empty() ? 0 : max_end_; }
  TimeUs makespan() const { return max_end() - min_start(); }

  // EarliestFit: the earliest start >= not_before at which `demand` fits on
  // some machine for `duration`; nullopt when the demand fits no machine.
  std::optional<Slot> EarliestFit(const Resources& demand, TimeUs duration, TimeUs not_before,
                                  uint32_t hint = 0) const;
  // LatestFit: the latest start such that the box ends <= not_after.
  std::optional<Slot> LatestFit(const Resources& demand, TimeUs duration, TimeUs not_after,
                                uint32_t hint = 0) const;
  // Place puts a box on `machine`. Precondition: it fits (checked by the
  // Fit functions; Place itself does not refuse).
  void Place(uint32_t machine, TimeUs start, TimeUs duration, const Resources& demand);
  // UsageAt returns what is placed on `machine` at time t (for tests).
  Resources UsageAt(uint32_t machine, TimeUs t) const;
  // WithinCapacity: true when no machine's usage ever exceeds its capacity.
  bool WithinCapacity() const;

 private:
  struct Step {
    TimeUs t;
    Resources used;  // from t until the next step's t
  };
  struct MachineSpace {
    Resources capacity;
    std::vector<Step> steps;  // sorted by t; usage before the first is 0
  };
  static constexpr TimeUs kNever = std::numeric_limits<TimeUs>::max();
  static constexpr TimeUs kNeverLow = std::numeric_limits<TimeUs>::min();

  // Earliest on one machine; kNever when the start would be >= limit.
  static TimeUs Earliest(const MachineSpace& ms, const Resources& demand, TimeUs d, TimeUs t0, TimeUs limit);
  // Latest end on one machine; kNeverLow when the end would be <= limit.
  static TimeUs LatestEnd(const MachineSpace& ms, const Resources& demand, TimeUs d, TimeUs t1, TimeUs limit);
  // Breakpoint makes sure a step starts exactly at t; returns its index.
  static size_t Breakpoint(MachineSpace& ms, TimeUs t);

  std::vector<MachineSpace> machines_;
  uint64_t boxes_ = 0;
  TimeUs min_start_ = 0;
  TimeUs max_end_ = 0;
};

// FitsWith: used + demand <= capacity in every resource.
inline bool FitsWith(const Resources& used, const Resources& demand, const Resources& capacity) {
  for (int r = 0; r < kNumResources; ++r) {
    const Resource res = static_cast<Resource>(r);
    if (used.micro(res) + demand.micro(res) > capacity.micro(res)) return false;
  }
  return true;
}

}  // namespace weft::policy::dagps
