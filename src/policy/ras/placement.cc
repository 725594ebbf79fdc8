#include "policy/ras/placement.h"

#include <algorithm>
#include <numeric>

#include "policy/ras/utility.h"

namespace weft::policy::ras {

uint32_t Placement::MapTotal(size_t job) const { return std::accumulate(map[job].begin(), map[job].end(), 0u); }
uint32_t Placement::ReduceTotal(size_t job) const {
  return std::accumulate(reduce[job].begin(), reduce[job].end(), 0u);
}

double Utility(const PlacementJob& job, const Placement& placement, size_t index) {
  return JobUtility(placement.MapTotal(index), job.s_req, job.s_pend, placement.ReduceTotal(index), job.r_pend);
}

namespace {

// Cycle holds one run of Algorithm 1: the placement being built and, per
// machine, the sum of the profiles placed there (kept up to date).
class Cycle {
 public:
  Cycle(std::span<const PlacementJob> jobs, std::span<const Resources> capacity, std::span<const Resources> reserved,
        const std::vector<bool>& up, Placement p)
      : jobs_(jobs), capacity_(capacity), up_(up), p_(std::move(p)), used_(reserved.begin(), reserved.end()) {
    for (size_t j = 0; j < jobs_.size(); ++j) {
      map_total_.push_back(p_.MapTotal(j));
      reduce_total_.push_back(p_.ReduceTotal(j));
    }
  }

  void PlaceReducers() {
    std::vector<size_t> order(capacity_.size());
    for (size_t j = 0; j < jobs_.size(); ++j) {
      uint32_t left = jobs_[j].r_placeable - std::min(jobs_[j].r_placeable, reduce_total_[j]);
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

  // MapRound: one round of lines 10-24; true when it changed the placement.
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

  Placement Take() { return std::move(p_); }

 private:
  static constexpr size_t kNone = ~size_t{0};

  bool WantsMap(size_t j) const { return map_total_[j] < jobs_[j].s_pend; }
  bool Room(const Resources& profile, size_t m) const {
    return up_[m] && (used_[m] + profile).FitsIn(capacity_[m]);
  }
  void Add(std::vector<std::vector<uint32_t>>& matrix, const Resources& profile, size_t j, size_t m, int delta) {
    matrix[j][m] = static_cast<uint32_t>(static_cast<int>(matrix[j][m]) + delta);
    std::vector<uint32_t>& totals = &matrix == &p_.map ? map_total_ : reduce_total_;
    totals[j] = static_cast<uint32_t>(static_cast<int>(totals[j]) + delta);
    if (delta > 0) {
      used_[m] += profile;
    } else {
      used_[m] -= profile;
    }
  }
  // U: Utility(jobs_[j], p_, j), from the kept totals.
  double U(size_t j) const {
    const PlacementJob& job = jobs_[j];
    return JobUtility(map_total_[j], job.s_req, job.s_pend, reduce_total_[j], job.r_pend);
  }

  // Lowest: the job of lowest utility that wants another map slot (and,
  // with need_room, has room for it on m); ties to the lower index.
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

  // MakeRoom: lines 11-19 on machine m. Takes map slots from the highest-
  // utility jobs on m while the lowest job has no room, keeping each donor
  // at or above the lowest job's utility.
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
      if (U(out) < u_in) {  // the donor would fall below: put the slot back (line 19)
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
  Placement p_;
  std::vector<Resources> used_;
  // Per job, the sums of its rows of p_.map and p_.reduce, kept up to date
  // by Add: summing a row over every machine for each utility asked made a
  // round cost machines x machines x jobs (hours on a 12,583-machine cell).
  std::vector<uint32_t> map_total_;
  std::vector<uint32_t> reduce_total_;
};

}  // namespace

Placement Place(std::span<const PlacementJob> jobs, std::span<const Resources> capacity,
                std::span<const Resources> reserved, const std::vector<bool>& up, Placement current,
                uint32_t max_rounds) {
  Cycle cycle(jobs, capacity, reserved, up, std::move(current));
  cycle.PlaceReducers();
  for (uint32_t round = 0; round < max_rounds; ++round) {
    if (!cycle.MapRound()) break;
  }
  return cycle.Take();
}

}  // namespace weft::policy::ras
