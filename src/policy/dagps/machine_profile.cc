#include "policy/dagps/machine_profile.h"

#include <algorithm>
#include <iterator>

namespace weft::policy::dagps {

namespace {

const Resources kZero;

}  // namespace

const Resources& MachineProfile::SegmentUsage(size_t k) const { return k == 0 ? kZero : steps_[k - 1].used; }

TimeUs MachineProfile::Earliest(const Resources& demand, TimeUs d, TimeUs t0, TimeUs limit) const {
  const std::vector<Step>& st = steps_;
  const size_t n = st.size();
  TimeUs s = t0;
  size_t k = std::upper_bound(st.begin(), st.end(), s, [](TimeUs t, const Step& x) { return t < x.t; }) - st.begin();
  while (s < limit) {
    size_t q = k;
    bool ok = true;
    while (true) {
      if (!FitsWith(SegmentUsage(q), demand, capacity_)) {
        if (q == n) return kNever;  // only when the demand exceeds the capacity
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

TimeUs MachineProfile::LatestEnd(const Resources& demand, TimeUs d, TimeUs t1, TimeUs limit) const {
  const std::vector<Step>& st = steps_;
  TimeUs e = t1;
  // Segment holding the instant just before e: the number of steps with t < e.
  size_t k = std::lower_bound(st.begin(), st.end(), e, [](const Step& x, TimeUs t) { return x.t < t; }) - st.begin();
  while (e > limit) {
    size_t q = k;
    bool ok = true;
    while (true) {
      if (!FitsWith(SegmentUsage(q), demand, capacity_)) {
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

void MachineProfile::FitRuns(const Resources& demand, TimeUs from, TimeUs to, std::vector<Run>& out) const {
  const std::vector<Step>& st = steps_;
  const size_t n = st.size();
  size_t q = std::upper_bound(st.begin(), st.end(), from, [](TimeUs t, const Step& x) { return t < x.t; }) - st.begin();
  bool open = false;  // the last run in `out` is still growing
  for (; q <= n; ++q) {
    const TimeUs seg_start = q == 0 ? from : std::max(from, st[q - 1].t);
    if (seg_start >= to) break;
    const TimeUs seg_end = q == n ? to : std::min(to, st[q].t);
    if (!FitsWith(SegmentUsage(q), demand, capacity_)) {
      open = false;
    } else if (open) {
      out.back().b = seg_end;
    } else {
      out.push_back(Run{seg_start, seg_end});
      open = true;
    }
  }
}

size_t MachineProfile::Breakpoint(TimeUs t) {
  std::vector<Step>& st = steps_;
  auto it = std::lower_bound(st.begin(), st.end(), t, [](const Step& x, TimeUs v) { return x.t < v; });
  if (it != st.end() && it->t == t) return it - st.begin();
  const Resources used = it == st.begin() ? kZero : std::prev(it)->used;
  // Two statements: insert may reallocate, and the operands of '-' are unsequenced.
  const auto inserted = st.insert(it, Step{t, used});
  return static_cast<size_t>(inserted - st.begin());
}

void MachineProfile::Place(TimeUs start, TimeUs duration, const Resources& demand) {
  const size_t first = Breakpoint(start);
  const size_t last = Breakpoint(start + duration);
  std::vector<Step>& st = steps_;
  for (size_t k = first; k < last; ++k) st[k].used += demand;
  // Coalesce: a step whose usage equals the previous one's adds nothing
  // (tasks placed back to back leave such steps), and every scan walks them.
  auto same_as_before = [&](size_t k) {
    return k < st.size() && (k == 0 ? st[k].used.IsZero() : st[k].used == st[k - 1].used);
  };
  if (same_as_before(last)) st.erase(st.begin() + static_cast<std::ptrdiff_t>(last));
  if (same_as_before(first)) st.erase(st.begin() + static_cast<std::ptrdiff_t>(first));
}

Resources MachineProfile::UsageAt(TimeUs t) const {
  auto it = std::upper_bound(steps_.begin(), steps_.end(), t, [](TimeUs v, const Step& x) { return v < x.t; });
  return it == steps_.begin() ? kZero : std::prev(it)->used;
}

bool MachineProfile::WithinCapacity() const {
  for (const Step& s : steps_) {
    if (!s.used.FitsIn(capacity_)) return false;
  }
  return true;
}

}  // namespace weft::policy::dagps
