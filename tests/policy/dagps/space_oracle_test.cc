// File: tests/policy/dagps/space_oracle_test.cc
//
// The resource-time space's indexed fit search (space.h) against a plain
// oracle written from the definition, on random spaces: EarliestFit is the
// earliest start over the machines big enough, ties to the first machine in
// scan order from the hint; LatestFit the latest end, mirror-wise. The oracle
// keeps its own list of boxes and tries, on each machine, every time at which
// usage changes. Queries repeat demands and bounds (so that the space's
// indexes are reused and brought up to date after placements), use more kinds
// than the space keeps indexes for (so they are dropped and rebuilt), and a
// copy of the space is checked as it diverges from the original.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"
#include "policy/dagps/space.h"
#include "test_inputs.h"

namespace weft::policy::dagps::testing {
namespace {

// OracleSpace: boxes per machine, every question answered by brute force.
class OracleSpace {
 public:
  explicit OracleSpace(std::vector<Resources> capacities)
      : capacity_(std::move(capacities)), boxes_(capacity_.size()) {}

  void Place(uint32_t m, TimeUs start, TimeUs duration, const Resources& demand) {
    boxes_[m].push_back(Box{start, start + duration, demand});
  }

  // Fits: the demand fits beside the boxes at every instant of [x, y). Usage
  // is highest at x or where some box starts inside the interval.
  bool Fits(uint32_t m, const Resources& demand, TimeUs x, TimeUs y) const {
    std::vector<TimeUs> points = {x};
    for (const Box& b : boxes_[m]) {
      if (b.start > x && b.start < y) points.push_back(b.start);
    }
    for (TimeUs t : points) {
      if (!(UsageAt(boxes_[m], t) + demand).FitsIn(capacity_[m])) return false;
    }
    return true;
  }

  std::optional<ResourceTimeSpace::Slot> Earliest(const Resources& demand, TimeUs d, TimeUs t0,
                                                  uint32_t hint) const {
    return Best(hint, [&](uint32_t m) -> std::optional<TimeUs> {
      std::vector<TimeUs> starts = {t0};  // a best start is t0 or where a box ends
      for (const Box& b : boxes_[m]) {
        if (b.end > t0) starts.push_back(b.end);
      }
      std::sort(starts.begin(), starts.end());
      for (TimeUs s : starts) {
        if (Fits(m, demand, s, s + d)) return s;
      }
      return std::nullopt;
    }, /*earliest=*/true);
  }

  std::optional<ResourceTimeSpace::Slot> Latest(const Resources& demand, TimeUs d, TimeUs t1,
                                                uint32_t hint) const {
    auto slot = Best(hint, [&](uint32_t m) -> std::optional<TimeUs> {
      std::vector<TimeUs> ends = {t1};  // a best end is t1 or where a box starts
      for (const Box& b : boxes_[m]) {
        if (b.start < t1) ends.push_back(b.start);
      }
      std::sort(ends.rbegin(), ends.rend());
      for (TimeUs e : ends) {
        if (Fits(m, demand, e - d, e)) return e;
      }
      return std::nullopt;
    }, /*earliest=*/false);
    if (slot) slot->start -= d;
    return slot;
  }

 private:
  // Best: over the machines big enough, in scan order from the hint, the
  // strictly best time each one offers (so ties go to the first).
  template <typename PerMachine>
  std::optional<ResourceTimeSpace::Slot> Best(uint32_t hint, PerMachine per_machine, bool earliest) const {
    std::optional<ResourceTimeSpace::Slot> best;
    const uint32_t n = static_cast<uint32_t>(capacity_.size());
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t m = (hint + i) % n;
      const std::optional<TimeUs> t = per_machine(m);
      if (!t) continue;
      if (!best || (earliest ? *t < best->start : *t > best->start)) best = ResourceTimeSpace::Slot{m, *t};
    }
    return best;
  }

  std::vector<Resources> capacity_;
  std::vector<std::vector<Box>> boxes_;
};

void ExpectSame(const std::optional<ResourceTimeSpace::Slot>& got,
                const std::optional<ResourceTimeSpace::Slot>& want, int step) {
  ASSERT_EQ(got.has_value(), want.has_value()) << "step " << step;
  if (!got) return;
  EXPECT_EQ(got->machine, want->machine) << "step " << step;
  EXPECT_EQ(got->start, want->start) << "step " << step;
}

// PlaceAndCompare places `steps` boxes at the answers of random queries, checking every
// answer against the oracle (stopping at the first difference).
void PlaceAndCompare(Rng& rng, ResourceTimeSpace& space, OracleSpace& oracle, int steps, const std::vector<Resources>& demands,
         const std::vector<TimeUs>& bounds) {
  for (int step = 0; step < steps; ++step) {
    const Resources& demand = demands[rng.UniformInt(demands.size())];
    const TimeUs d = S(1 + static_cast<double>(rng.UniformInt(20)));
    const TimeUs bound = bounds[rng.UniformInt(bounds.size())];
    const uint32_t hint = static_cast<uint32_t>(rng.UniformInt(space.num_machines()));
    const bool forward = rng.Bernoulli(0.5);
    const auto got = forward ? space.EarliestFit(demand, d, bound, hint) : space.LatestFit(demand, d, bound, hint);
    const auto want = forward ? oracle.Earliest(demand, d, bound, hint) : oracle.Latest(demand, d, bound, hint);
    ExpectSame(got, want, step);
    if (::testing::Test::HasFailure()) return;
    if (!got || !rng.Bernoulli(0.8)) continue;  // some queries place nothing
    space.Place(got->machine, got->start, d, demand);
    oracle.Place(got->machine, got->start, d, demand);
  }
}

TEST(ResourceTimeSpaceOracleTest, IndexedSearchMatchesBruteForceOnRandomSpaces) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    const uint32_t machines = 1 + static_cast<uint32_t>(rng.UniformInt(6));
    std::vector<Resources> caps;
    for (uint32_t m = 0; m < machines; ++m) {
      caps.push_back(rng.Bernoulli(0.5) ? Units(4, 4) : Units(2 + static_cast<double>(rng.UniformInt(4)), 3));
    }
    // A few demands, some too big for the small machines; a few bounds.
    std::vector<Resources> demands;
    for (int k = 0; k < 3 + static_cast<int>(seed % 10); ++k) {
      demands.push_back(Units(1 + static_cast<double>(rng.UniformInt(4)), static_cast<double>(rng.UniformInt(4))));
    }
    const std::vector<TimeUs> bounds = {S(0), S(5), S(-3), S(17)};
    ResourceTimeSpace space(caps);
    OracleSpace oracle(caps);
    PlaceAndCompare(rng, space, oracle, 150, demands, bounds);
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
    // A copy answers the same, and the two then diverge independently.
    ResourceTimeSpace copy = space;
    OracleSpace copy_oracle = oracle;
    PlaceAndCompare(rng, copy, copy_oracle, 60, demands, bounds);
    PlaceAndCompare(rng, space, oracle, 60, demands, bounds);
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed << " (after copying)";
      return;
    }
  }
}

TEST(ResourceTimeSpaceOracleTest, ManyQueryKindsEvictAndRebuildIndexes) {
  // More (demand, bound) kinds than the space keeps indexes for.
  Rng rng(7);
  const std::vector<Resources> caps(5, Units(8, 8));
  std::vector<Resources> demands;
  for (int k = 0; k < 12; ++k) demands.push_back(Units(1 + k % 5, 1 + k % 3));
  std::vector<TimeUs> bounds;
  for (int k = 0; k < 6; ++k) bounds.push_back(S(3 * k));
  ResourceTimeSpace space(caps);
  OracleSpace oracle(caps);
  PlaceAndCompare(rng, space, oracle, 600, demands, bounds);
  EXPECT_TRUE(space.WithinCapacity());
}

}  // namespace
}  // namespace weft::policy::dagps::testing
