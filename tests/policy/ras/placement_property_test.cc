// Place (the sparse Algorithm 1 of policy/ras/placement.h) against a
// straightforward reference on random cycles: jobs, TaskTrackers, profiles,
// machines up and down, and the placement running now. The reference is the
// dense implementation Place replaced: every step scans every job and every
// TaskTracker, as Algorithm 1 reads. Both must give the same placement, cell
// by cell.
#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "policy/ras/placement.h"
#include "policy/ras/utility.h"

namespace weft::policy::ras {
namespace {

// Dense: tasks per [job][machine], per kind.
struct Dense {
  std::vector<std::vector<uint32_t>> map;
  std::vector<std::vector<uint32_t>> reduce;
  Dense(size_t jobs, size_t machines)
      : map(jobs, std::vector<uint32_t>(machines)), reduce(jobs, std::vector<uint32_t>(machines)) {}
};

// Reference: Algorithm 1 over Dense, scanning all jobs for every choice.
class Reference {
 public:
  Reference(std::span<const PlacementJob> jobs, std::span<const Resources> capacity,
            std::span<const Resources> reserved, const std::vector<bool>& up, Dense p)
      : jobs_(jobs), capacity_(capacity), up_(up), p_(std::move(p)), used_(reserved.begin(), reserved.end()) {}

  Dense Run(uint32_t max_rounds) {
    PlaceReducers();
    for (uint32_t round = 0; round < max_rounds; ++round) {
      if (!MapRound()) break;
    }
    return p_;
  }

 private:
  static constexpr size_t kNone = ~size_t{0};

  static uint32_t Sum(const std::vector<uint32_t>& row) { return std::accumulate(row.begin(), row.end(), 0u); }
  double U(size_t j) const {
    const PlacementJob& job = jobs_[j];
    return JobUtility(Sum(p_.map[j]), job.s_req, job.s_pend, Sum(p_.reduce[j]), job.r_pend);
  }
  bool WantsMap(size_t j) const { return Sum(p_.map[j]) < jobs_[j].s_pend; }
  bool Room(const Resources& profile, size_t m) const {
    return up_[m] && (used_[m] + profile).FitsIn(capacity_[m]);
  }
  void Add(std::vector<std::vector<uint32_t>>& matrix, const Resources& profile, size_t j, size_t m, int delta) {
    matrix[j][m] = static_cast<uint32_t>(static_cast<int>(matrix[j][m]) + delta);
    if (delta > 0) {
      used_[m] += profile;
    } else {
      used_[m] -= profile;
    }
  }

  // Lines 1-8.
  void PlaceReducers() {
    std::vector<size_t> order(capacity_.size());
    for (size_t j = 0; j < jobs_.size(); ++j) {
      uint32_t left = jobs_[j].r_placeable - std::min(jobs_[j].r_placeable, Sum(p_.reduce[j]));
      if (left == 0) continue;
      std::vector<uint32_t> total(capacity_.size(), 0);
      for (size_t m = 0; m < capacity_.size(); ++m) {
        for (size_t k = 0; k < jobs_.size(); ++k) total[m] += p_.reduce[k][m];
      }
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (total[a] != total[b]) return total[a] < total[b];
        return p_.reduce[j][a] < p_.reduce[j][b];
      });
      for (size_t m : order) {
        if (left == 0) break;
        if (!Room(jobs_[j].reduce_profile, m)) continue;
        Add(p_.reduce, jobs_[j].reduce_profile, j, m, +1);
        --left;
      }
    }
  }

  // Lines 10-24, one round.
  bool MapRound() {
    bool changed = false;
    for (size_t m = 0; m < capacity_.size(); ++m) {
      if (!up_[m]) continue;
      changed |= MakeRoom(m);
      while (true) {
        const size_t in = Lowest(m, /*need_room=*/true);
        if (in == kNone) break;
        Add(p_.map, jobs_[in].map_profile, in, m, +1);
        changed = true;
      }
    }
    return changed;
  }

  size_t Lowest(size_t m, bool need_room) const {
    size_t best = kNone;
    double best_u = 0;
    for (size_t j = 0; j < jobs_.size(); ++j) {
      if (!WantsMap(j) || (need_room && !Room(jobs_[j].map_profile, m))) continue;
      const double u = U(j);
      if (best == kNone || u < best_u) {
        best = j;
        best_u = u;
      }
    }
    return best;
  }

  // Lines 11-19.
  bool MakeRoom(size_t m) {
    const size_t in = Lowest(m, /*need_room=*/false);
    if (in == kNone) return false;
    const double u_in = U(in);
    bool changed = false;
    while (!Room(jobs_[in].map_profile, m)) {
      size_t out = kNone;
      double out_u = 0;
      for (size_t j = 0; j < jobs_.size(); ++j) {
        if (j == in || p_.map[j][m] == 0) continue;
        const double u = U(j);
        if (out == kNone || u > out_u) {
          out = j;
          out_u = u;
        }
      }
      if (out == kNone || out_u <= u_in) break;
      Add(p_.map, jobs_[out].map_profile, out, m, -1);
      if (U(out) < u_in) {  // line 19: put the slot back
        Add(p_.map, jobs_[out].map_profile, out, m, +1);
        break;
      }
      changed = true;
    }
    return changed;
  }

  std::span<const PlacementJob> jobs_;
  std::span<const Resources> capacity_;
  const std::vector<bool>& up_;
  Dense p_;
  std::vector<Resources> used_;
};

// Case: one random cycle's inputs.
struct Case {
  std::vector<PlacementJob> jobs;
  std::vector<Resources> capacity;
  std::vector<Resources> reserved;
  std::vector<bool> up;
  Dense current{0, 0};
  uint32_t max_rounds = 10;
};

// Units drawn from a few values, so that ties (in utility, in room, in the
// reducer order) are common.
Resources Draw(std::mt19937& rng, std::span<const double> cpu, std::span<const double> mem) {
  auto pick = [&](std::span<const double> v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  return *Resources::FromUnits({pick(cpu), pick(mem), 0, 0});
}

Case RandomCase(std::mt19937& rng) {
  auto below = [&](uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n)(rng); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  Case c;
  const size_t jobs = 1 + below(9);
  const size_t machines = 1 + below(7);
  static constexpr double kTaskCpu[] = {0, 0.25, 0.5, 1, 2};
  static constexpr double kTaskMem[] = {0, 0.5, 1, 2};
  static constexpr double kMachineCpu[] = {1, 2, 4};
  static constexpr double kMachineMem[] = {2, 4, 8};
  for (size_t j = 0; j < jobs; ++j) {
    PlacementJob job;
    job.map_profile = Draw(rng, kTaskCpu, kTaskMem);
    job.reduce_profile = Draw(rng, kTaskCpu, kTaskMem);
    job.s_pend = below(12);
    // s_req as the estimator gives it: in [min(1, s_pend), s_pend], often 1
    // or s_pend ("as soon as possible").
    job.s_req = job.s_pend == 0 ? 0 : chance(0.3) ? 1 : chance(0.4) ? job.s_pend : 1 + below(job.s_pend - 1);
    job.r_placeable = chance(0.5) ? below(6) : 0;
    job.r_pend = job.r_placeable;
    c.jobs.push_back(job);
  }
  for (size_t m = 0; m < machines; ++m) {
    c.capacity.push_back(Draw(rng, kMachineCpu, kMachineMem));
    c.up.push_back(!chance(0.15));
  }
  // The placement running now: a few tasks per job, on up and down
  // machines, holding their profiles (sometimes beyond capacity, as a
  // machine that shrank would).
  c.current = Dense(jobs, machines);
  c.reserved.assign(machines, Resources());
  for (size_t j = 0; j < jobs; ++j) {
    for (size_t m = 0; m < machines; ++m) {
      if (!chance(0.35)) continue;
      c.current.map[j][m] = below(3);
      if (chance(0.3)) c.current.reduce[j][m] = below(2);
      for (uint32_t k = 0; k < c.current.map[j][m]; ++k) c.reserved[m] += c.jobs[j].map_profile;
      for (uint32_t k = 0; k < c.current.reduce[j][m]; ++k) c.reserved[m] += c.jobs[j].reduce_profile;
    }
  }
  c.max_rounds = chance(0.2) ? 1 + below(2) : 10;
  return c;
}

Placement Sparse(const Dense& d, size_t machines) {
  Placement p(d.map.size(), machines);
  for (size_t j = 0; j < d.map.size(); ++j) {
    for (size_t m = 0; m < machines; ++m) {
      p.Set(SlotKind::kMap, j, m, d.map[j][m]);
      p.Set(SlotKind::kReduce, j, m, d.reduce[j][m]);
    }
  }
  return p;
}

TEST(RasPlacementPropertyTest, PlaceMatchesTheReferenceOnRandomCycles) {
  std::mt19937 rng(20261129);
  int moved = 0;  // cases where the cycle took a slot from a job: MakeRoom ran
  for (int n = 0; n < 3000; ++n) {
    const Case c = RandomCase(rng);
    const size_t machines = c.capacity.size();
    const Dense want = Reference(c.jobs, c.capacity, c.reserved, c.up, c.current).Run(c.max_rounds);
    const Placement got = Place(c.jobs, c.capacity, c.reserved, c.up, Sparse(c.current, machines), c.max_rounds);
    ASSERT_EQ(got.jobs(), c.jobs.size());
    ASSERT_EQ(got.machines(), machines);
    bool took = false;
    for (size_t j = 0; j < c.jobs.size(); ++j) {
      uint32_t maps = 0, reduces = 0;
      for (size_t m = 0; m < machines; ++m) {
        ASSERT_EQ(got.map(j, m), want.map[j][m]) << "case " << n << " job " << j << " machine " << m;
        ASSERT_EQ(got.reduce(j, m), want.reduce[j][m]) << "case " << n << " job " << j << " machine " << m;
        maps += want.map[j][m];
        reduces += want.reduce[j][m];
        took |= want.map[j][m] < c.current.map[j][m];
      }
      EXPECT_EQ(got.MapTotal(j), maps);
      EXPECT_EQ(got.ReduceTotal(j), reduces);
    }
    // Every machine lists its jobs by index, none with no task.
    for (size_t m = 0; m < machines; ++m) {
      const std::span<const Placement::Cell> cells = got.On(m);
      for (size_t k = 0; k < cells.size(); ++k) {
        EXPECT_TRUE(cells[k].map > 0 || cells[k].reduce > 0);
        if (k > 0) {
          EXPECT_LT(cells[k - 1].job, cells[k].job);
        }
      }
    }
    moved += took;
  }
  // The random cycles exercise lines 11-19, not only the greedy fill.
  EXPECT_GT(moved, 100);
}

}  // namespace
}  // namespace weft::policy::ras
