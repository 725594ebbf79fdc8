#include "policy/dagps/machine_profile.h"

#include <algorithm>
#include <iterator>

#include "absl/container/inlined_vector.h"

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

void MachineProfile::Place(TimeUs start, TimeUs duration, const Resources& demand) {
  if (duration <= 0) return;  // an empty box changes no usage
  const TimeUs end = start + duration;
  std::vector<Step>& st = steps_;
  // The steps are rewritten from the one at `start` (made if missing) to
  // the one at `end` (made if missing, its usage that of the instant before
  // end), those in [start, end) raised by the demand. A step whose usage
  // equals the previous one's adds nothing (tasks placed back to back leave
  // such steps at start or end), and every scan walks them: it is dropped.
  // The new stretch is built aside and spliced in with one move of the
  // tail, where inserting and erasing each step moved the tail each time.
  const auto lo = std::lower_bound(st.begin(), st.end(), start, [](const Step& x, TimeUs v) { return x.t < v; });
  const auto hi = std::lower_bound(lo, st.end(), end, [](const Step& x, TimeUs v) { return x.t < v; });
  const bool has_start = lo != st.end() && lo->t == start;
  const bool has_end = hi != st.end() && hi->t == end;
  const Resources& before = lo == st.begin() ? kZero : std::prev(lo)->used;
  absl::InlinedVector<Step, 16> fresh;
  fresh.push_back(Step{start, (has_start ? lo->used : before) + demand});
  for (auto it = has_start ? std::next(lo) : lo; it != hi; ++it) fresh.push_back(Step{it->t, it->used + demand});
  const Step at_end{end, has_end ? hi->used : (hi == st.begin() ? kZero : std::prev(hi)->used)};
  if (at_end.used != fresh.back().used) fresh.push_back(at_end);
  if (fresh.front().used == before) fresh.erase(fresh.begin());
  // Splice fresh in place of [lo, hi] (hi included when a step is at end).
  const size_t from = static_cast<size_t>(lo - st.begin());
  const size_t old_size = static_cast<size_t>(hi - lo) + (has_end ? 1 : 0);
  if (fresh.size() > old_size) {
    st.insert(st.begin() + static_cast<std::ptrdiff_t>(from + old_size), fresh.size() - old_size, Step{});
  } else if (fresh.size() < old_size) {
    st.erase(st.begin() + static_cast<std::ptrdiff_t>(from + fresh.size()),
             st.begin() + static_cast<std::ptrdiff_t>(from + old_size));
  }
  std::copy(fresh.begin(), fresh.end(), st.begin() + static_cast<std::ptrdiff_t>(from));
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
