#include "policy/dagps/space.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "absl/container/inlined_vector.h"

namespace weft::policy::dagps {

ResourceTimeSpace::ResourceTimeSpace(std::vector<Resources> capacities) {
  machines_.reserve(capacities.size());
  for (const Resources& c : capacities) machines_.emplace_back(c);
}

// Copies take the placements, not the cache: an index serves one stage
// wave's kind of query, and the builder's copies go on to other waves or
// the other direction, so a copied index is never asked for (measured on
// the bench's DAG: as many builds, 3.8 % more instructions).
ResourceTimeSpace::ResourceTimeSpace(const ResourceTimeSpace& other)
    : machines_(other.machines_), boxes_(other.boxes_), min_start_(other.min_start_), max_end_(other.max_end_) {}

ResourceTimeSpace& ResourceTimeSpace::operator=(const ResourceTimeSpace& other) {
  if (this == &other) return *this;
  machines_ = other.machines_;
  boxes_ = other.boxes_;
  min_start_ = other.min_start_;
  max_end_ = other.max_end_;
  indexes_.clear();
  log_.clear();
  return *this;
}

TimeUs ResourceTimeSpace::Key(const FitIndex& index, const Run& r) {
  return index.forward ? r.a : -r.b;  // the runs are cut at the edge: both finite
}

TimeUs ResourceTimeSpace::Length(const Run& r) {
  return r.a == MachineProfile::kNeverLow || r.b == MachineProfile::kNever ? MachineProfile::kNever : r.b - r.a;
}

int ResourceTimeSpace::LengthClass(TimeUs length) { return std::bit_width(static_cast<uint64_t>(length)); }

ResourceTimeSpace::Class::iterator ResourceTimeSpace::Find(Class& c, TimeUs key, uint32_t machine) {
  return std::partition_point(c.begin(), c.end(), [&](const Entry& e) { return e.Before(key, machine); });
}

void ResourceTimeSpace::Insert(FitIndex& index, uint32_t m, const Run& r) {
  const TimeUs length = Length(r);
  Class& c = index.by_length[LengthClass(length)];
  const TimeUs key = Key(index, r);
  c.insert(Find(c, key, m), Entry{key, m, length});
  index.nonempty |= uint64_t{1} << LengthClass(length);
}

void ResourceTimeSpace::Erase(FitIndex& index, uint32_t m, const Run& r) {
  const int w = LengthClass(Length(r));
  Class& c = index.by_length[w];
  c.erase(Find(c, Key(index, r), m));  // present: every run of index.runs is in its class
  if (c.empty()) index.nonempty &= ~(uint64_t{1} << w);
}

void ResourceTimeSpace::Replace(FitIndex& index, uint32_t m, const Run& old, const Run& now) {
  const TimeUs length = Length(now);
  const int w = LengthClass(length);
  if (w != LengthClass(Length(old))) {
    Erase(index, m, old);
    Insert(index, m, now);
    return;
  }
  // One class: rotate the entries between the old and the new position by
  // one. A box placed in a run mostly leaves it as it was or shrinks it a
  // little, so few entries move, where an erase and an insert would each
  // shift the class's whole tail.
  Class& c = index.by_length[w];
  const TimeUs key = Key(index, now);
  const Entry entry{key, m, length};
  const auto from = Find(c, Key(index, old), m);
  if (from->Before(key, m)) {
    const auto to = std::partition_point(from + 1, c.end(), [&](const Entry& e) { return e.Before(key, m); });
    std::rotate(from, from + 1, to);
    *(to - 1) = entry;
  } else {
    const auto to = std::partition_point(c.begin(), from, [&](const Entry& e) { return e.Before(key, m); });
    std::rotate(to, from, from + 1);
    *to = entry;
  }
}

void ResourceTimeSpace::Apply(FitIndex& index, const Placed& placed) const {
  std::vector<Run>& runs = index.runs[placed.machine];
  // The runs overlapping [start, end): they are disjoint and in time order.
  const auto first = std::partition_point(runs.begin(), runs.end(), [&](const Run& r) { return r.b <= placed.start; });
  const auto last = std::partition_point(first, runs.end(), [&](const Run& r) { return r.a < placed.end; });
  if (first == last) return;
  std::vector<Run>& fresh = scratch_;
  fresh.clear();
  for (auto it = first; it != last; ++it) {
    // Only the part of the run under the box can change: it is scanned
    // again, and the parts outside, which still fit, are joined back to it.
    // (Scanning the whole run again walked every step of a long run.)
    const TimeUs lo = std::max(it->a, placed.start);
    const TimeUs hi = std::min(it->b, placed.end);
    const size_t before = fresh.size();
    machines_[placed.machine].FitRuns(index.demand, lo, hi, fresh);
    if (it->a < lo) {
      if (fresh.size() > before && fresh[before].a == lo) {
        fresh[before].a = it->a;
      } else {
        fresh.insert(fresh.begin() + static_cast<std::ptrdiff_t>(before), Run{it->a, lo});
      }
    }
    if (hi < it->b) {
      if (fresh.size() > before && fresh.back().b == hi) {
        fresh.back().b = it->b;
      } else {
        fresh.push_back(Run{hi, it->b});
      }
    }
  }
  if (last - first == 1 && fresh.size() == 1) {
    // The common case: one run overlapped, left whole or shrunk.
    if (fresh[0].a == first->a && fresh[0].b == first->b) return;  // the demand still fits under the box
    Replace(index, placed.machine, *first, fresh[0]);
  } else {
    for (auto it = first; it != last; ++it) Erase(index, placed.machine, *it);
    for (const Run& r : fresh) Insert(index, placed.machine, r);
  }
  const auto at = runs.erase(first, last);
  runs.insert(at, fresh.begin(), fresh.end());
}

ResourceTimeSpace::FitIndex& ResourceTimeSpace::IndexFor(bool forward, const Resources& demand,
                                                         TimeUs edge) const {
  const size_t m = machines_.size();
  ++queries_;
  auto it = std::find_if(indexes_.begin(), indexes_.end(), [&](const FitIndex& x) {
    return x.forward == forward && x.edge == edge && x.demand == demand;
  });
  if (it == indexes_.end()) {
    // Make one (replacing the least recently used) from every machine's runs.
    if (indexes_.size() < kMaxIndexes) {
      it = indexes_.emplace(indexes_.end());
    } else {
      it = std::min_element(indexes_.begin(), indexes_.end(),
                            [](const FitIndex& a, const FitIndex& b) { return a.last_used < b.last_used; });
    }
    it->forward = forward;
    it->demand = demand;
    it->edge = edge;
    it->seen = log_.size();
    it->runs.resize(m);
    for (Class& c : it->by_length) c.clear();  // keeps their capacity for the next build
    for (uint32_t k = 0; k < m; ++k) {
      std::vector<Run>& runs = it->runs[k];
      runs.clear();
      if (!demand.FitsIn(machines_[k].capacity())) continue;
      // Found in the scratch vector, then copied with one allocation (room
      // to grow as placements split runs): the index of a fresh copy of the
      // space grew each machine's vector from empty, a malloc and a copy at
      // each doubling.
      scratch_.clear();
      machines_[k].FitRuns(demand, forward ? edge : MachineProfile::kNeverLow, forward ? MachineProfile::kNever : edge,
                           scratch_);
      if (runs.capacity() < scratch_.size()) runs.reserve(2 * scratch_.size());
      runs.assign(scratch_.begin(), scratch_.end());
      for (const Run& r : runs) {
        const TimeUs length = Length(r);
        it->by_length[LengthClass(length)].push_back(Entry{Key(*it, r), k, length});
      }
    }
    it->nonempty = 0;
    for (size_t w = 0; w < it->by_length.size(); ++w) {
      Class& c = it->by_length[w];
      std::sort(c.begin(), c.end(), [](const Entry& x, const Entry& y) { return x.Before(y.key, y.machine); });
      if (!c.empty()) it->nonempty |= uint64_t{1} << w;
    }
  } else {
    for (size_t i = it->seen; i < log_.size(); ++i) Apply(*it, log_[i]);
    it->seen = log_.size();
  }
  it->last_used = queries_;
  // Drop the part of the log every index has applied.
  size_t oldest = log_.size();
  for (const FitIndex& x : indexes_) oldest = std::min(oldest, x.seen);
  if (oldest > 4096 && oldest * 2 > log_.size()) {
    log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(oldest));
    for (FitIndex& x : indexes_) x.seen -= oldest;
  }
  return *it;
}

std::optional<ResourceTimeSpace::Slot> ResourceTimeSpace::Search(const FitIndex& index, TimeUs duration,
                                                                 uint32_t hint) const {
  const uint32_t m = static_cast<uint32_t>(machines_.size());
  // The best key: the first entry of every class longer than d (all are
  // long enough), and the first long enough one of d's own class. Where
  // each class holding the best key has its first long-enough entry is kept
  // (`at_best`, emptied when the best improves), so that the machines
  // sharing that key are read from there without searching again.
  absl::InlinedVector<std::pair<const Class*, size_t>, 8> at_best;
  const int own = LengthClass(duration);
  bool found = false;
  TimeUs best = 0;
  for (uint64_t classes = index.nonempty & (~uint64_t{0} << own); classes != 0; classes &= classes - 1) {
    const Class& runs = index.by_length[std::countr_zero(classes)];
    for (size_t i = 0; i < runs.size(); ++i) {
      const Entry& e = runs[i];
      if (found && e.key > best) break;
      if (e.length < duration) continue;
      if (!found || e.key < best) at_best.clear();
      at_best.emplace_back(&runs, i);
      found = true;
      best = e.key;
      break;
    }
  }
  if (!found) return std::nullopt;
  // Among the runs with that key, the machine first in scan order.
  uint32_t best_machine = 0;
  uint32_t best_rank = m;
  for (const auto& [runs, from] : at_best) {
    for (size_t i = from; i < runs->size() && (*runs)[i].key == best; ++i) {
      const Entry& e = (*runs)[i];
      if (e.length < duration) continue;
      const uint32_t rank = e.machine >= hint ? e.machine - hint : e.machine + m - hint;
      if (rank < best_rank) {
        best_rank = rank;
        best_machine = e.machine;
      }
      // One key's entries are in machine order: from the hint on, the rest rank lower.
      if (e.machine >= hint) break;
    }
  }
  return Slot{best_machine, index.forward ? best : -best - duration};
}

std::optional<ResourceTimeSpace::Slot> ResourceTimeSpace::EarliestFit(const Resources& demand, TimeUs duration,
                                                                      TimeUs not_before, uint32_t hint) const {
  const size_t m = machines_.size();
  if (m == 0) return std::nullopt;
  // The hint first: when it fits at once, nothing can be earlier and it is
  // first in scan order.
  hint %= m;
  const MachineProfile& h = machines_[hint];
  if (demand.FitsIn(h.capacity()) && h.Earliest(demand, duration, not_before, not_before + 1) == not_before) {
    return Slot{hint, not_before};
  }
  return Search(IndexFor(true, demand, not_before), duration, hint);
}

std::optional<ResourceTimeSpace::Slot> ResourceTimeSpace::LatestFit(const Resources& demand, TimeUs duration,
                                                                    TimeUs not_after, uint32_t hint) const {
  const size_t m = machines_.size();
  if (m == 0) return std::nullopt;
  hint %= m;
  const MachineProfile& h = machines_[hint];
  if (demand.FitsIn(h.capacity()) && h.LatestEnd(demand, duration, not_after, not_after - 1) == not_after) {
    return Slot{hint, not_after - duration};
  }
  return Search(IndexFor(false, demand, not_after), duration, hint);
}

void ResourceTimeSpace::Place(uint32_t machine, TimeUs start, TimeUs duration, const Resources& demand) {
  machines_[machine].Place(start, duration, demand);
  if (!indexes_.empty()) log_.push_back(Placed{machine, start, start + duration});
  const TimeUs end = start + duration;
  if (boxes_ == 0) {
    min_start_ = start;
    max_end_ = end;
  } else {
    min_start_ = std::min(min_start_, start);
    max_end_ = std::max(max_end_, end);
  }
  ++boxes_;
}

Resources ResourceTimeSpace::UsageAt(uint32_t machine, TimeUs t) const { return machines_[machine].UsageAt(t); }

bool ResourceTimeSpace::WithinCapacity() const {
  return std::all_of(machines_.begin(), machines_.end(), [](const MachineProfile& p) { return p.WithinCapacity(); });
}

}  // namespace weft::policy::dagps
