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
// Each machine keeps a step function of its usage (machine_profile.h). The
// answer of EarliestFit is defined as: the earliest start over all machines
// big enough for the demand, ties to the first machine in scan order, which
// starts at the hint (where the previous task went) and wraps around.
// LatestFit is the mirror image (latest end). How it is found quickly:
//   1. the hint machine at once, when it has room at not_before (the common
//      case in a filling space; nothing can be earlier);
//   2. otherwise a fit index for the query's (direction, demand, bound):
//      the runs of time during which the demand fits, of every machine, on
//      the bound's side of it, ordered by start (by end backwards) with their
//      lengths. A box fits exactly inside a run at least as long as it, so
//      the answer is the first such run in that order. A placement can only
//      shrink or split its own machine's runs under the box, so an index is
//      brought up to date from the log of placements since it was last used,
//      not rebuilt. The tasks of a stage share demand and bound, so one index
//      serves a stage's whole wave; a few indexes are kept, least recently
//      used dropped first.
// The result is the same as scanning every machine (the first version did;
// tests/policy/dagps/space_oracle_test.cc compares the two on random spaces).
// Departure from the paper's "time and resource indexed hash map of free
// regions" (4.4): per-machine step functions and an index of their
// fit runs, per query kind.
// Plain value type: copying it clones the placements (TrySubsetOrders needs
// that) but not the fit indexes, which are rebuilt on demand.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/time.h"
#include "model/resources.h"
#include "policy/dagps/machine_profile.h"

namespace weft::policy::dagps {

class ResourceTimeSpace {
 public:
  struct Slot {
    uint32_t machine = 0;
    TimeUs start = 0;
  };

  explicit ResourceTimeSpace(std::vector<Resources> capacities);
  ResourceTimeSpace(const ResourceTimeSpace& other);
  ResourceTimeSpace& operator=(const ResourceTimeSpace& other);
  ResourceTimeSpace(ResourceTimeSpace&&) = default;
  ResourceTimeSpace& operator=(ResourceTimeSpace&&) = default;

  size_t num_machines() const { return machines_.size(); }
  const Resources& capacity(uint32_t m) const { return machines_[m].capacity(); }
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
  using Run = MachineProfile::Run;
  // FitIndex: for one kind of query (direction, demand, bound), every
  // machine's fit runs on the bound's side (machine_profile.h), and all of
  // them ordered by key = start forwards, minus end backwards (smaller is
  // better either way), with their length. The answer to a query of
  // duration d is the first run of length >= d (ties: the machine first in
  // scan order among equal keys). Runs are kept in one sorted vector per
  // length class (bit width of the length), so that a query reads only the
  // first entry of each class longer than d and scans only d's own class.
  // Sorted vectors, not ordered maps: a class holds only the runs of one
  // band of lengths, so moving its tail on an insert costs less than a
  // tree's node maintenance (measured: BENCHMARKS.md, DAGPS schedule
  // builder), a search walks contiguous memory, and a build is one sort.
  struct Entry {
    TimeUs key;
    uint32_t machine;
    TimeUs length;
    // Entries are ordered by (key, machine), which is unique per index.
    bool Before(TimeUs k, uint32_t m) const { return key < k || (key == k && machine < m); }
  };
  using Class = std::vector<Entry>;
  struct FitIndex {
    bool forward = true;
    Resources demand;
    TimeUs edge = 0;         // not_before (forwards) or not_after (backwards)
    size_t seen = 0;         // entries of log_ already applied
    uint64_t last_used = 0;  // for least-recently-used replacement
    std::vector<std::vector<Run>> runs;  // per machine, in time order
    // by_length[w]: runs whose length has bit width w, sorted by (key, machine).
    std::array<Class, 64> by_length;
    // Bit w set when by_length[w] has entries: a search visits only those
    // (a few dozen of the 64 classes are ever used).
    uint64_t nonempty = 0;
  };
  struct Placed {
    uint32_t machine;
    TimeUs start;
    TimeUs end;
  };
  static constexpr size_t kMaxIndexes = 16;

  static TimeUs Key(const FitIndex& index, const Run& r);
  static TimeUs Length(const Run& r);
  static int LengthClass(TimeUs length);
  // Find: the first entry of `c` not before (key, machine).
  static Class::iterator Find(Class& c, TimeUs key, uint32_t machine);
  static void Insert(FitIndex& index, uint32_t m, const Run& r);
  static void Erase(FitIndex& index, uint32_t m, const Run& r);
  // Replace: machine m's run `old` becomes `now` (Erase then Insert, in fewer moves).
  static void Replace(FitIndex& index, uint32_t m, const Run& old, const Run& now);
  // Apply updates the index for a box placed on one machine: only that
  // machine's runs overlapping the box can shrink or split.
  void Apply(FitIndex& index, const Placed& placed) const;
  // IndexFor returns the up-to-date index for the query, made if needed.
  FitIndex& IndexFor(bool forward, const Resources& demand, TimeUs edge) const;
  // Search: the best slot over all machines given the index.
  std::optional<Slot> Search(const FitIndex& index, TimeUs duration, uint32_t hint) const;

  std::vector<MachineProfile> machines_;
  uint64_t boxes_ = 0;
  TimeUs min_start_ = 0;
  TimeUs max_end_ = 0;
  // Fit indexes, and every placement some index has not applied yet. A
  // cache: not copied.
  mutable std::vector<FitIndex> indexes_;
  mutable std::vector<Placed> log_;
  mutable std::vector<Run> scratch_;  // Apply's new runs
  mutable uint64_t queries_ = 0;
};

}  // namespace weft::policy::dagps
