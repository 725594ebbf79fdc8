#include "policy/ras/placement.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "policy/ras/utility.h"

namespace weft::policy::ras {

namespace {

// CellOf: the first cell of `cells` whose job is not below `job`.
template <typename Cells>
auto CellOf(Cells& cells, size_t job) {
  return std::lower_bound(cells.begin(), cells.end(), job,
                          [](const Placement::Cell& c, size_t j) { return c.job < j; });
}

}  // namespace

uint32_t Placement::count(SlotKind kind, size_t job, size_t m) const {
  const std::vector<Cell>& cells = on_[m];
  const auto it = CellOf(cells, job);
  return it != cells.end() && it->job == job ? it->count(kind) : 0;
}

void Placement::Add(SlotKind kind, size_t job, size_t m, int delta) {
  if (delta == 0) return;
  std::vector<Cell>& cells = on_[m];
  auto it = CellOf(cells, job);
  if (it == cells.end() || it->job != job) it = cells.insert(it, Cell{.job = static_cast<uint32_t>(job)});
  uint32_t& n = kind == SlotKind::kMap ? it->map : it->reduce;
  n = static_cast<uint32_t>(static_cast<int>(n) + delta);
  uint32_t& total = (kind == SlotKind::kMap ? map_total_ : reduce_total_)[job];
  total = static_cast<uint32_t>(static_cast<int>(total) + delta);
  if (it->map == 0 && it->reduce == 0) cells.erase(it);
}

double Utility(const PlacementJob& job, const Placement& placement, size_t index) {
  return JobUtility(placement.MapTotal(index), job.s_req, job.s_pend, placement.ReduceTotal(index), job.r_pend);
}

namespace {

// Cycle holds one run of Algorithm 1: the placement being built and, kept up
// to date by Add, per machine the sum of the profiles placed there, per job
// its utility, and the jobs that want a map slot in Lowest's order.
class Cycle {
 public:
  Cycle(std::span<const PlacementJob> jobs, std::span<const Resources> capacity, std::span<const Resources> reserved,
        const std::vector<bool>& up, Placement p)
      : jobs_(jobs),
        capacity_(capacity),
        up_(up),
        p_(std::move(p)),
        used_(reserved.begin(), reserved.end()),
        u_(jobs.size()) {
    for (size_t j = 0; j < jobs_.size(); ++j) {
      u_[j] = U(j);
      if (WantsMap(j)) {
        wanting_.emplace(u_[j], j);
        CountProfile(j, true);
      }
    }
  }

  // PlaceReducers: lines 1-8. For each job with reducers left, one pass over
  // the TaskTrackers sorted by (reducers there, this job's reducers there,
  // id), taken as they stand when the job's pass starts.
  void PlaceReducers() {
    bool any = false;
    for (size_t j = 0; j < jobs_.size(); ++j) any |= ReducersLeft(j) > 0;
    if (!any) return;
    // by_total: the up TaskTrackers by (reducers there, id); mine[j]: the
    // TaskTrackers where job j has reducers. A job's order is by_total
    // without its own TaskTrackers, merged with those sorted by (reducers
    // there, its reducers there, id): at equal totals, the TaskTrackers
    // without its reducers come first.
    std::vector<uint32_t> on(capacity_.size(), 0);
    std::vector<std::vector<uint32_t>> mine(jobs_.size());
    // max_free bounds what any TaskTracker has free (at least 0); it only
    // shrinks while reducers are added, so a profile that does not fit in it
    // fits nowhere.
    Resources max_free;
    for (size_t m = 0; m < capacity_.size(); ++m) {
      for (const Placement::Cell& c : p_.On(m)) {
        on[m] += c.reduce;
        if (c.reduce > 0) mine[c.job].push_back(static_cast<uint32_t>(m));
      }
      if (!up_[m]) continue;
      const Resources free = capacity_[m] - used_[m];
      for (int i = 0; i < kNumResources; ++i) {
        const auto r = static_cast<Resource>(i);
        max_free.set_micro(r, std::max(max_free.micro(r), free.micro(r)));
      }
    }
    std::set<std::pair<uint32_t, uint32_t>> by_total;
    for (size_t m = 0; m < capacity_.size(); ++m) {
      if (up_[m]) by_total.emplace_hint(by_total.end(), on[m], static_cast<uint32_t>(m));
    }
    std::vector<bool> is_mine(capacity_.size());
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> own;  // (reducers there, the job's, id)
    std::vector<uint32_t> chosen;
    for (size_t j = 0; j < jobs_.size(); ++j) {
      const uint32_t left = ReducersLeft(j);
      const Resources& profile = jobs_[j].reduce_profile;
      if (left == 0 || !profile.FitsIn(max_free)) continue;
      own.clear();
      for (uint32_t m : mine[j]) {
        own.emplace_back(on[m], p_.reduce(j, m), m);
        is_mine[m] = true;
      }
      std::sort(own.begin(), own.end());
      // Walk the order, choosing the first `left` TaskTrackers with room: a
      // pass adds one reducer per TaskTracker, so the room of those not yet
      // walked does not change while it runs.
      chosen.clear();
      auto a = by_total.begin();
      size_t b = 0;
      while (chosen.size() < left) {
        while (a != by_total.end() && is_mine[a->second]) ++a;
        const bool has_a = a != by_total.end();
        if (!has_a && b == own.size()) break;
        uint32_t m;
        if (has_a && (b == own.size() || a->first <= std::get<0>(own[b]))) {
          m = (a++)->second;
        } else {
          m = std::get<2>(own[b++]);
        }
        if (Room(profile, m)) chosen.push_back(m);
      }
      for (uint32_t m : mine[j]) is_mine[m] = false;
      for (uint32_t m : chosen) {
        if (p_.reduce(j, m) == 0) mine[j].push_back(m);
        Add(SlotKind::kReduce, j, m, +1);
        by_total.erase({on[m], m});
        by_total.emplace(++on[m], m);
      }
    }
  }

  // MapRound: one round of lines 10-24; true when it changed the placement.
  bool MapRound() {
    bool changed = false;
    for (size_t m = 0; m < capacity_.size(); ++m) {
      // No job wants a map slot: nothing changes here or further on.
      if (wanting_.empty()) break;
      if (!up_[m]) continue;
      changed |= MakeRoom(m);
      changed |= Fill(m);
    }
    return changed;
  }

  Placement Take() { return std::move(p_); }

 private:
  static constexpr size_t kNone = ~size_t{0};
  // Key: Lowest's order, utility then index.
  using Key = std::pair<double, size_t>;

  bool WantsMap(size_t j) const { return p_.MapTotal(j) < jobs_[j].s_pend; }
  uint32_t ReducersLeft(size_t j) const {
    return jobs_[j].r_placeable - std::min(jobs_[j].r_placeable, p_.ReduceTotal(j));
  }
  bool Room(const Resources& profile, size_t m) const {
    return up_[m] && (used_[m] + profile).FitsIn(capacity_[m]);
  }
  // U: Utility(jobs_[j], p_, j).
  double U(size_t j) const {
    const PlacementJob& job = jobs_[j];
    return JobUtility(p_.MapTotal(j), job.s_req, job.s_pend, p_.ReduceTotal(j), job.r_pend);
  }

  void Add(SlotKind kind, size_t j, size_t m, int delta) {
    const bool wanted = WantsMap(j);
    if (wanted) wanting_.erase({u_[j], j});
    p_.Add(kind, j, m, delta);
    const Resources& profile = kind == SlotKind::kMap ? jobs_[j].map_profile : jobs_[j].reduce_profile;
    if (delta > 0) {
      used_[m] += profile;
    } else {
      used_[m] -= profile;
    }
    u_[j] = U(j);
    const bool wants = WantsMap(j);
    if (wants) wanting_.emplace(u_[j], j);
    if (wants != wanted) CountProfile(j, wants);
  }
  // CountProfile: job j starts (or stops) wanting a map slot.
  void CountProfile(size_t j, bool wants) {
    for (int i = 0; i < kNumResources; ++i) {
      const int64_t v = jobs_[j].map_profile.micro(static_cast<Resource>(i));
      if (wants) {
        want_profile_[i].insert(v);
      } else {
        want_profile_[i].erase(want_profile_[i].find(v));
      }
    }
  }
  // AnyRoom: false when no job that wants a map slot has room on m, judged
  // by the least the wanting jobs need of each resource.
  bool AnyRoom(size_t m) const {
    if (wanting_.empty()) return false;
    Resources least;
    for (int i = 0; i < kNumResources; ++i) least.set_micro(static_cast<Resource>(i), *want_profile_[i].begin());
    return Room(least, m);
  }

  // MakeRoom: lines 11-19 on machine m. Takes map slots from the highest-
  // utility jobs on m while the lowest job has no room, keeping each donor
  // at or above the lowest job's utility.
  bool MakeRoom(size_t m) {
    if (wanting_.empty()) return false;
    const size_t in = wanting_.begin()->second;
    const double u_in = u_[in];
    bool changed = false;
    while (!Room(jobs_[in].map_profile, m)) {
      size_t out = kNone;
      double out_u = 0;
      for (const Placement::Cell& c : p_.On(m)) {  // by index: ties to the lower
        if (c.job == in || c.map == 0) continue;
        if (out == kNone || u_[c.job] > out_u) {
          out = c.job;
          out_u = u_[c.job];
        }
      }
      if (out == kNone || out_u <= u_in) break;
      Add(SlotKind::kMap, out, m, -1);
      if (u_[out] < u_in) {  // the donor would fall below: put the slot back (line 19)
        Add(SlotKind::kMap, out, m, +1);
        break;
      }
      changed = true;
    }
    return changed;
  }

  // Fill: lines 20-23 on machine m, one slot at a time to the lowest-
  // utility job that wants one and has room. Adding to m only shrinks its
  // room, so the jobs a search passed over stay without room and the next
  // search starts where the last one found its job (or at that job's new
  // key, if lower).
  bool Fill(size_t m) {
    bool changed = false;
    std::optional<Key> from;
    while (AnyRoom(m)) {
      auto it = from ? wanting_.lower_bound(*from) : wanting_.begin();
      while (it != wanting_.end() && !Room(jobs_[it->second].map_profile, m)) ++it;
      if (it == wanting_.end()) break;
      const size_t in = it->second;
      from = *it;
      Add(SlotKind::kMap, in, m, +1);
      changed = true;
      if (WantsMap(in)) from = std::min(*from, Key{u_[in], in});
    }
    return changed;
  }

  std::span<const PlacementJob> jobs_;
  std::span<const Resources> capacity_;
  const std::vector<bool>& up_;
  Placement p_;
  std::vector<Resources> used_;
  std::vector<double> u_;  // U(j), kept by Add
  // The jobs that want a map slot by (utility, index): Lowest without a scan
  // of every job; and, per resource, the multiset of their map profiles'
  // amounts, whose least tells when none of them can fit on a machine.
  std::set<Key> wanting_;
  std::array<std::multiset<int64_t>, kNumResources> want_profile_;
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
