// MaxMinSharing: hand-computed max-min cases, and a property test that every
// solution of random systems is feasible and max-min fair (each activity is
// at its cap or has a bottleneck), and that incremental solving equals
// solving from scratch.
#include "sim/maxmin_sharing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace weft::sim {
namespace {

using Use = MaxMinSharing::Use;
constexpr double kNoCap = MaxMinSharing::kNoCap;

// A capped activity leaves what it cannot use to the other: 0.2 core wanted
// beside a full core on a 1-core machine gives 0.2 and 0.8 (proportional
// sharing would give 1/6 and 5/6).
TEST(MaxMinSharingTest, CappedActivityLeavesTheRestToTheOther) {
  MaxMinSharing s;
  const auto core = s.AddConstraint(1.0);
  const auto small = s.AddActivity(1, 0.2, std::vector<Use>{{core, 1}});
  const auto big = s.AddActivity(1, 1.0, std::vector<Use>{{core, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(small), 0.2);
  EXPECT_DOUBLE_EQ(s.rate(big), 0.8);
  EXPECT_DOUBLE_EQ(s.load(core), 1.0);
}

TEST(MaxMinSharingTest, EqualActivitiesShareEquallyAndWeightsScaleShares) {
  MaxMinSharing s;
  const auto c = s.AddConstraint(3.0);
  const auto a = s.AddActivity(1, kNoCap, std::vector<Use>{{c, 1}});
  const auto b = s.AddActivity(2, kNoCap, std::vector<Use>{{c, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(a), 1.0);
  EXPECT_DOUBLE_EQ(s.rate(b), 2.0);
}

// Two links, a long flow over both and a short flow on each: max-min gives
// every flow 0.5; proportional fairness would give the long one 1/3 and the
// short ones 2/3.
TEST(MaxMinSharingTest, TwoCoupledLinksGiveTheLongFlowAnEqualShare) {
  MaxMinSharing s;
  const auto l1 = s.AddConstraint(1);
  const auto l2 = s.AddConstraint(1);
  const auto longf = s.AddActivity(1, kNoCap, std::vector<Use>{{l1, 1}, {l2, 1}});
  const auto f1 = s.AddActivity(1, kNoCap, std::vector<Use>{{l1, 1}});
  const auto f2 = s.AddActivity(1, kNoCap, std::vector<Use>{{l2, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(longf), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f1), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f2), 0.5);
}

// The bottleneck moves: the long flow is held to 0.5 by the narrow link, and
// the wide link's remaining 9.5 goes to its other flow.
TEST(MaxMinSharingTest, CapacityANarrowLinkLeavesGoesToTheWideLinksOtherFlow) {
  MaxMinSharing s;
  const auto narrow = s.AddConstraint(1);
  const auto wide = s.AddConstraint(10);
  const auto both = s.AddActivity(1, kNoCap, std::vector<Use>{{narrow, 1}, {wide, 1}});
  const auto on_narrow = s.AddActivity(1, kNoCap, std::vector<Use>{{narrow, 1}});
  const auto on_wide = s.AddActivity(1, kNoCap, std::vector<Use>{{wide, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(both), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(on_narrow), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(on_wide), 9.5);
}

// Two remote reads from one source machine (interface out 100 MB/s) to two
// machines whose interfaces in take 1000 MB/s: 50 MB/s each.
TEST(MaxMinSharingTest, ReadsFromOneSourceShareItsInterfaceOut) {
  MaxMinSharing s;
  const auto s_out = s.AddConstraint(100);
  const auto x_in = s.AddConstraint(1000);
  const auto y_in = s.AddConstraint(1000);
  const auto to_x = s.AddActivity(1, kNoCap, std::vector<Use>{{s_out, 1}, {x_in, 1}});
  const auto to_y = s.AddActivity(1, kNoCap, std::vector<Use>{{s_out, 1}, {y_in, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(to_x), 50);
  EXPECT_DOUBLE_EQ(s.rate(to_y), 50);
}

// Four flows leave a rack through a 100 MB/s uplink, each from its own
// machine (100 MB/s out) and each capped at 40 MB/s per flow: the uplink, not
// the caps or the interfaces, decides (25 each). A fifth flow inside the rack
// takes its machine's interface alone.
TEST(MaxMinSharingTest, FlowsLeavingARackShareItsUplink) {
  MaxMinSharing s;
  const auto uplink = s.AddConstraint(100);
  std::vector<MaxMinSharing::ActivityId> out;
  for (int i = 0; i < 4; ++i) {
    const auto nic = s.AddConstraint(100);
    out.push_back(s.AddActivity(1, 40, std::vector<Use>{{nic, 1}, {uplink, 1}}));
  }
  const auto local_nic = s.AddConstraint(100);
  const auto local = s.AddActivity(1, kNoCap, std::vector<Use>{{local_nic, 1}});
  s.Solve();
  for (auto f : out) EXPECT_DOUBLE_EQ(s.rate(f), 25);
  EXPECT_DOUBLE_EQ(s.rate(local), 100);
}

// Incast: ten map outputs on ten machines copied into one reducer whose
// interface in takes 100 MB/s: 10 MB/s each, however fast the sources.
TEST(MaxMinSharingTest, IncastIntoOneReducerSharesItsInterfaceIn) {
  MaxMinSharing s;
  const auto reducer_in = s.AddConstraint(100);
  std::vector<MaxMinSharing::ActivityId> copies;
  for (int i = 0; i < 10; ++i) {
    const auto src_out = s.AddConstraint(1000);
    copies.push_back(s.AddActivity(1, kNoCap, std::vector<Use>{{src_out, 1}, {reducer_in, 1}}));
  }
  s.Solve();
  for (auto f : copies) EXPECT_DOUBLE_EQ(s.rate(f), 10);
  EXPECT_DOUBLE_EQ(s.load(reducer_in), 100);
}

// A task that wants cpu and disk progresses at one rate over both (its
// coefficients are what it uses per unit of progress): the disk holds it to
// half speed, so it takes only 0.5 x 0.4 core, and the cpu-only task gets the
// rest of the core (work conservation across resources).
TEST(MaxMinSharingTest, ATaskHeldBackByOneResourceLeavesTheOthersToOtherTasks) {
  MaxMinSharing s;
  const auto cpu = s.AddConstraint(1);
  const auto disk = s.AddConstraint(100);
  const auto mixed = s.AddActivity(1, 1.0, std::vector<Use>{{cpu, 0.4}, {disk, 200}});
  const auto cpu_only = s.AddActivity(1, 1.0, std::vector<Use>{{cpu, 1}});
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(mixed), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(cpu_only), 0.8);
  EXPECT_DOUBLE_EQ(s.load(cpu), 1.0);
}

TEST(MaxMinSharingTest, AZeroCapacityConstraintStopsItsActivities) {
  MaxMinSharing s;
  const auto dead = s.AddConstraint(0);
  const auto live = s.AddConstraint(5);
  const auto a = s.AddActivity(1, kNoCap, std::vector<Use>{{dead, 1}, {live, 1}});
  const auto b = s.AddActivity(1, kNoCap, std::vector<Use>{{live, 1}});
  s.Solve();
  EXPECT_EQ(s.rate(a), 0);
  EXPECT_DOUBLE_EQ(s.rate(b), 5);
}

TEST(MaxMinSharingTest, AnActivityCrossingNoConstraintRunsAtItsCap) {
  MaxMinSharing s;
  const auto a = s.AddActivity(1, 7.5, {});
  const auto solved = s.Solve();
  ASSERT_EQ(solved.size(), 1u);
  EXPECT_EQ(s.rate(a), 7.5);
}

// Only the connected set an edit touches is solved again.
TEST(MaxMinSharingTest, AnEditResolvesOnlyItsConnectedSet) {
  MaxMinSharing s;
  const auto m1 = s.AddConstraint(1);
  const auto m2 = s.AddConstraint(1);
  const auto a = s.AddActivity(1, kNoCap, std::vector<Use>{{m1, 1}});
  const auto b = s.AddActivity(1, kNoCap, std::vector<Use>{{m1, 1}});
  const auto c = s.AddActivity(1, kNoCap, std::vector<Use>{{m2, 1}});
  EXPECT_EQ(s.Solve().size(), 3u);
  s.RemoveActivity(b);
  const auto solved = s.Solve();
  ASSERT_EQ(solved.size(), 1u);
  EXPECT_EQ(solved[0], a);
  EXPECT_DOUBLE_EQ(s.rate(a), 1.0);
  EXPECT_DOUBLE_EQ(s.rate(c), 1.0);
  EXPECT_TRUE(s.Solve().empty());  // nothing changed since
  s.SetCapacity(m2, 0.5);
  const auto again = s.Solve();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0], c);
  EXPECT_DOUBLE_EQ(s.rate(c), 0.5);
}

TEST(MaxMinSharingTest, RemovedIdsAreReusedWithTheirNewUses) {
  MaxMinSharing s;
  const auto k = s.AddConstraint(4);
  const auto a = s.AddActivity(1, kNoCap, std::vector<Use>{{k, 1}});
  const auto b = s.AddActivity(1, kNoCap, std::vector<Use>{{k, 1}});
  s.Solve();
  s.RemoveActivity(a);
  const auto c = s.AddActivity(3, kNoCap, std::vector<Use>{{k, 1}});
  EXPECT_EQ(c, a);
  s.Solve();
  EXPECT_DOUBLE_EQ(s.rate(b), 1.0);
  EXPECT_DOUBLE_EQ(s.rate(c), 3.0);
  EXPECT_EQ(s.activities(), 2u);
}

// --- property test ----------------------------------------------------------

struct Spec {
  double weight, cap;
  std::vector<Use> uses;
};

// Checks that the rates are feasible and max-min fair: every activity is at
// its cap or crosses a saturated constraint on which no other activity has a
// larger rate / weight (its bottleneck).
void ExpectMaxMinFair(const MaxMinSharing& s, size_t constraints, const std::vector<Spec>& specs,
                      const std::vector<MaxMinSharing::ActivityId>& ids, const std::vector<bool>& live) {
  constexpr double kTol = 1e-9;
  std::vector<double> load(constraints, 0);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!live[i]) continue;
    ASSERT_GE(s.rate(ids[i]), 0);
    ASSERT_LE(s.rate(ids[i]), specs[i].cap * (1 + kTol));
    for (const Use& u : specs[i].uses) load[u.constraint] += u.coefficient * s.rate(ids[i]);
  }
  for (size_t c = 0; c < constraints; ++c) {
    ASSERT_LE(load[c], s.capacity(static_cast<uint32_t>(c)) * (1 + kTol) + kTol) << "constraint " << c;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!live[i]) continue;
    const double level = s.rate(ids[i]) / specs[i].weight;
    if (s.rate(ids[i]) >= specs[i].cap * (1 - kTol)) continue;  // at its cap
    bool bottleneck = false;
    for (const Use& u : specs[i].uses) {
      const double cap = s.capacity(u.constraint);
      if (load[u.constraint] < cap * (1 - 1e-7) - kTol) continue;  // not saturated
      bool largest = true;
      for (size_t j = 0; j < specs.size() && largest; ++j) {
        if (!live[j]) continue;
        for (const Use& w : specs[j].uses) {
          if (w.constraint == u.constraint && s.rate(ids[j]) / specs[j].weight > level * (1 + 1e-7) + kTol) {
            largest = false;
          }
        }
      }
      bottleneck = bottleneck || largest;
    }
    EXPECT_TRUE(bottleneck) << "activity " << i << " at rate " << s.rate(ids[i]) << " has no bottleneck";
  }
}

TEST(MaxMinSharingPropertyTest, RandomSystemsAreFeasibleFairAndIncrementalEqualsFresh) {
  std::mt19937_64 rng(20261207);
  for (int round = 0; round < 200; ++round) {
    const size_t constraints = 1 + rng() % 8;
    std::uniform_real_distribution<double> cap_dist(0.5, 100);
    MaxMinSharing inc;
    std::vector<double> capacities;
    for (size_t c = 0; c < constraints; ++c) {
      capacities.push_back(rng() % 10 == 0 ? 0.0 : cap_dist(rng));
      inc.AddConstraint(capacities.back());
    }
    std::vector<Spec> specs;
    std::vector<MaxMinSharing::ActivityId> ids;
    std::vector<bool> live;
    auto random_spec = [&] {
      Spec sp{.weight = 0.5 + (rng() % 4), .cap = rng() % 3 == 0 ? std::uniform_real_distribution<double>(0.1, 50)(rng)
                                                                 : kNoCap};
      const size_t n = 1 + rng() % std::min<size_t>(3, constraints);
      for (size_t k = 0; k < n; ++k) {
        sp.uses.push_back(Use{static_cast<uint32_t>(rng() % constraints),
                              std::uniform_real_distribution<double>(0.1, 3)(rng)});
      }
      return sp;
    };
    // A sequence of edits, solved incrementally after each.
    for (int step = 0; step < 12; ++step) {
      const int what = static_cast<int>(rng() % 4);
      if (what <= 1 || ids.empty()) {
        specs.push_back(random_spec());
        ids.push_back(inc.AddActivity(specs.back().weight, specs.back().cap, specs.back().uses));
        live.push_back(true);
      } else if (what == 2) {
        const size_t i = rng() % ids.size();
        if (live[i]) {
          inc.RemoveActivity(ids[i]);
          live[i] = false;
        }
      } else {
        const uint32_t c = static_cast<uint32_t>(rng() % constraints);
        capacities[c] = cap_dist(rng);
        inc.SetCapacity(c, capacities[c]);
      }
      inc.Solve();
      ExpectMaxMinFair(inc, constraints, specs, ids, live);
    }
    // The same live system solved from scratch gives the same rates.
    MaxMinSharing fresh;
    for (double c : capacities) fresh.AddConstraint(c);
    std::vector<MaxMinSharing::ActivityId> fresh_ids(specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
      if (live[i]) fresh_ids[i] = fresh.AddActivity(specs[i].weight, specs[i].cap, specs[i].uses);
    }
    fresh.Solve();
    for (size_t i = 0; i < specs.size(); ++i) {
      if (live[i]) {
        EXPECT_NEAR(inc.rate(ids[i]), fresh.rate(fresh_ids[i]), 1e-9 * (1 + fresh.rate(fresh_ids[i])));
      }
    }
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace weft::sim
