// File: tests/policy/dagps/machine_profile_test.cc
//
// MachineProfile's step function (machine_profile.h) against a plain list of
// boxes on random placements: boxes back to back, nested, sharing start or
// end times, and zero-length boxes. After every placement the usage at every
// instant where it may change must be the sum of the boxes there, and the
// profile must keep exactly one step per instant where the usage changes
// (no step where it stays the same: every scan walks the steps).
#include <algorithm>
#include <set>
#include <vector>

#include "core/random.h"
#include "gtest/gtest.h"
#include "policy/dagps/machine_profile.h"
#include "test_inputs.h"

namespace weft::policy::dagps::testing {
namespace {

TEST(MachineProfileTest, PlaceKeepsTheUsageAndOneStepPerChange) {
  Rng rng(11);
  for (int round = 0; round < 40; ++round) {
    MachineProfile profile(Units(1000, 1000));
    std::vector<Box> boxes;
    for (int k = 0; k < 60; ++k) {
      // Times on a coarse grid so that boxes often share boundaries.
      const TimeUs start = S(static_cast<int64_t>(rng.UniformInt(30)) - 10);
      const TimeUs duration = S(static_cast<int64_t>(rng.UniformInt(8)));  // 0 now and then
      // Two demands only, so that neighbouring usages are often equal.
      const Resources demand = rng.Bernoulli(0.5) ? Units(1, 2) : Units(2, 1);
      profile.Place(start, duration, demand);
      if (duration > 0) boxes.push_back(Box{start, start + duration, demand});
      std::set<TimeUs> instants;
      for (const Box& b : boxes) {
        instants.insert(b.start);
        instants.insert(b.end);
      }
      size_t changes = 0;
      Resources previous;  // zero before everything
      for (TimeUs t : instants) {
        const Resources want = UsageAt(boxes, t);
        ASSERT_EQ(profile.UsageAt(t), want) << "round " << round << " box " << k << " t " << t;
        ASSERT_EQ(profile.UsageAt(t - 1), UsageAt(boxes, t - 1));
        if (want != previous) ++changes;
        previous = want;
      }
      ASSERT_EQ(profile.num_steps(), changes) << "round " << round << " box " << k;
    }
  }
}

}  // namespace
}  // namespace weft::policy::dagps::testing
