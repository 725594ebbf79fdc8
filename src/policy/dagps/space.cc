#include "policy/dagps/space.h"

#include <algorithm>
#include <utility>

namespace weft::policy::dagps {

ResourceTimeSpace::ResourceTimeSpace(std::vector<Resources> capacities) {
  machines_.reserve(capacities.size());
  for (Resources& c : capacities) machines_.push_back(MachineSpace{c, {}});
}

namespace {

const Resources kZero;

}  // namespace

// Segments of a machine: segment k (0..n) covers [steps[k-1].t, steps[k].t),
// with segment 0 starting at -infinity (usage 0) and segment n running to
// +infinity (usage of the last step, 0 once every box has ended).
TimeUs ResourceTimeSpace::Earliest(const MachineSpace& ms, const Resources& demand, TimeUs d, TimeUs t0,
                                   TimeUs limit) {
  const std::vector<Step>& st = ms.steps;
  const size_t n = st.size();
  TimeUs s = t0;
  size_t k = std::upper_bound(st.begin(), st.end(), s, [](TimeUs t, const Step& x) { return t < x.t; }) - st.begin();
  while (s < limit) {
    size_t q = k;
    bool ok = true;
    while (true) {
      const Resources& used = q == 0 ? kZero : st[q - 1].used;
      if (!FitsWith(used, demand, ms.capacity)) {
        if (q == n) return kNever;  // cannot happen when the demand fits the machine
        s = st[q].t;
        k = q + 1;
        ok = false;
        break;
      }
      if (q == n || st[q].t >= s + d) break;
      ++q;
    }
    if (ok) return s;
  }
  return kNever;
}

TimeUs ResourceTimeSpace::LatestEnd(const MachineSpace& ms, const Resources& demand, TimeUs d, TimeUs t1,
                                    TimeUs limit) {
  const std::vector<Step>& st = ms.steps;
  TimeUs e = t1;
  // Segment holding the instant just before e: the number of steps with t < e.
  size_t k = std::lower_bound(st.begin(), st.end(), e, [](const Step& x, TimeUs t) { return x.t < t; }) - st.begin();
  while (e > limit) {
    size_t q = k;
    bool ok = true;
    while (true) {
      const Resources& used = q == 0 ? kZero : st[q - 1].used;
      if (!FitsWith(used, demand, ms.capacity)) {
        if (q == 0) return kNeverLow;
        e = st[q - 1].t;
        k = q - 1;
        ok = false;
        break;
      }
      if (q == 0 || st[q - 1].t <= e - d) break;
      --q;
    }
    if (ok) return e;
  }
  return kNeverLow;
}

std::optional<ResourceTimeSpace::Slot> ResourceTimeSpace::EarliestFit(const Resources& demand, TimeUs duration,
                                                                      TimeUs not_before, uint32_t hint) const {
  const size_t m = machines_.size();
  if (m == 0) return std::nullopt;
  // The scan starts at the hint: when the hint itself fits at once, nothing
  // can be earlier and it is first in scan order.
  hint %= m;
  if (demand.FitsIn(machines_[hint].capacity) &&
      Earliest(machines_[hint], demand, duration, not_before, not_before + 1) == not_before) {
    return Slot{hint, not_before};
  }
  // A machine is empty after its last box ends: the earliest such time is an
  // answer, and bounds every scan (one past it, so that scan order still
  // breaks ties).
  TimeUs best = kNever;
  uint32_t best_machine = 0;
  for (size_t k = 0; k < m; ++k) {
    const MachineSpace& ms = machines_[k];
    if (!demand.FitsIn(ms.capacity)) continue;
    const TimeUs empty_from = ms.steps.empty() ? not_before : std::max(not_before, ms.steps.back().t);
    if (empty_from < best) {
      best = empty_from;
      best_machine = static_cast<uint32_t>(k);
    }
  }
  if (best == kNever) return std::nullopt;
  const TimeUs tail = best;
  best = tail + 1;
  for (size_t i = 0; i < m; ++i) {
    const uint32_t k = static_cast<uint32_t>((hint + i) % m);
    if (!demand.FitsIn(machines_[k].capacity)) continue;
    const TimeUs s = Earliest(machines_[k], demand, duration, not_before, best);
    if (s < best) {
      best = s;
      best_machine = k;
      if (best == not_before) break;
    }
  }
  if (best > tail) best = tail;  // no scan beat the empty machine
  return Slot{best_machine, best};
}

std::optional<ResourceTimeSpace::Slot> ResourceTimeSpace::LatestFit(const Resources& demand, TimeUs duration,
                                                                    TimeUs not_after, uint32_t hint) const {
  const size_t m = machines_.size();
  if (m == 0) return std::nullopt;
  hint %= m;
  if (demand.FitsIn(machines_[hint].capacity) &&
      LatestEnd(machines_[hint], demand, duration, not_after, not_after - 1) == not_after) {
    return Slot{hint, not_after - duration};
  }
  // Mirror image of EarliestFit: a machine is empty before its first box.
  TimeUs best = kNeverLow;
  uint32_t best_machine = 0;
  for (size_t k = 0; k < m; ++k) {
    const MachineSpace& ms = machines_[k];
    if (!demand.FitsIn(ms.capacity)) continue;
    const TimeUs empty_until = ms.steps.empty() ? not_after : std::min(not_after, ms.steps.front().t);
    if (empty_until > best) {
      best = empty_until;
      best_machine = static_cast<uint32_t>(k);
    }
  }
  if (best == kNeverLow) return std::nullopt;
  const TimeUs head = best;
  best = head - 1;
  for (size_t i = 0; i < m; ++i) {
    const uint32_t k = static_cast<uint32_t>((hint + i) % m);
    if (!demand.FitsIn(machines_[k].capacity)) continue;
    const TimeUs e = LatestEnd(machines_[k], demand, duration, not_after, best);
    if (e > best) {
      best = e;
      best_machine = k;
      if (best == not_after) break;
    }
  }
  if (best < head) best = head;  // no scan beat the empty machine
  return Slot{best_machine, best - duration};
}

size_t ResourceTimeSpace::Breakpoint(MachineSpace& ms, TimeUs t) {
  std::vector<Step>& st = ms.steps;
  auto it = std::lower_bound(st.begin(), st.end(), t, [](const Step& x, TimeUs v) { return x.t < v; });
  if (it != st.end() && it->t == t) return it - st.begin();
  const Resources used = it == st.begin() ? kZero : std::prev(it)->used;
  // Two statements: insert may reallocate, and the operands of '-' are unsequenced.
  const auto inserted = st.insert(it, Step{t, used});
  return static_cast<size_t>(inserted - st.begin());
}

void ResourceTimeSpace::Place(uint32_t machine, TimeUs start, TimeUs duration, const Resources& demand) {
  MachineSpace& ms = machines_[machine];
  const TimeUs end = start + duration;
  const size_t first = Breakpoint(ms, start);
  const size_t last = Breakpoint(ms, end);
  for (size_t k = first; k < last; ++k) ms.steps[k].used += demand;
  // Coalesce: a step whose usage equals the previous one's adds nothing
  // (tasks placed back to back leave such steps), and every scan walks them.
  std::vector<Step>& st = ms.steps;
  auto same_as_before = [&](size_t k) {
    return k < st.size() && (k == 0 ? st[k].used.IsZero() : st[k].used == st[k - 1].used);
  };
  if (same_as_before(last)) st.erase(st.begin() + static_cast<std::ptrdiff_t>(last));
  if (same_as_before(first)) st.erase(st.begin() + static_cast<std::ptrdiff_t>(first));
  if (boxes_ == 0) {
    min_start_ = start;
    max_end_ = end;
  } else {
    min_start_ = std::min(min_start_, start);
    max_end_ = std::max(max_end_, end);
  }
  ++boxes_;
}

Resources ResourceTimeSpace::UsageAt(uint32_t machine, TimeUs t) const {
  const std::vector<Step>& st = machines_[machine].steps;
  auto it = std::upper_bound(st.begin(), st.end(), t, [](TimeUs v, const Step& x) { return v < x.t; });
  return it == st.begin() ? kZero : std::prev(it)->used;
}

bool ResourceTimeSpace::WithinCapacity() const {
  for (const MachineSpace& ms : machines_) {
    for (const Step& s : ms.steps) {
      if (!s.used.FitsIn(ms.capacity)) return false;
    }
  }
  return true;
}

}  // namespace weft::policy::dagps
