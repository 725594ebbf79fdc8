// Weighted max-min fair sharing by progressive filling (sim/maxmin_sharing.h).
#include "sim/maxmin_sharing.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace weft::sim {

namespace {
// Two fill levels closer than this (relatively) are the same: constraints
// that saturate together are fixed in one round, so that equal activities
// get bit-for-bit equal rates whatever the order they are visited in.
constexpr double kRelativeTie = 1e-12;

// (b is a finite level >= 0; an infinite a, an uncapped activity, is never at it.)
bool AtMost(double a, double b) { return a <= b + kRelativeTie * b; }
}  // namespace

MaxMinSharing::ConstraintId MaxMinSharing::AddConstraint(double capacity) {
  assert(capacity >= 0);
  constraints_.push_back(Constraint{.capacity = capacity});
  return static_cast<ConstraintId>(constraints_.size() - 1);
}

void MaxMinSharing::SetCapacity(ConstraintId c, double capacity) {
  assert(capacity >= 0);
  Constraint& k = constraints_[c];
  if (k.capacity == capacity) return;
  k.capacity = capacity;
  k.expand = true;  // every member's rate may move
  if (!k.dirty) {
    k.dirty = true;
    dirty_.push_back(c);
  }
}

void MaxMinSharing::Count(const Activity& a, int sign) {
  for (const ActivityUse& u : a.uses) {
    Constraint& k = constraints_[u.constraint];
    if (a.cap == kNoCap) {
      k.uncapped += sign;
    } else {
      k.cap_sum += sign * u.coefficient * a.cap;
    }
    if (k.members.empty()) k.cap_sum = 0;  // no rounding left over
  }
}

MaxMinSharing::ActivityId MaxMinSharing::AddActivity(double weight, double cap, std::span<const Use> uses) {
  assert(weight > 0 && cap > 0);
  assert(!uses.empty() || cap != kNoCap);
  ActivityId v;
  if (!free_activities_.empty()) {
    v = free_activities_.back();
    free_activities_.pop_back();
  } else {
    v = static_cast<ActivityId>(activities_.size());
    activities_.emplace_back();
  }
  Activity& a = activities_[v];
  a.weight = weight;
  a.cap = cap;
  a.rate = 0;
  a.live = true;
  a.uses.clear();
  for (const Use& u : uses) {
    assert(u.coefficient > 0);
    auto& members = constraints_[u.constraint].members;
    a.uses.push_back(ActivityUse{u.constraint, u.coefficient, static_cast<uint32_t>(members.size())});
    members.push_back(Member{v, static_cast<uint32_t>(a.uses.size() - 1)});
  }
  Count(a, +1);
  MarkDirty(v);
  return v;
}

void MaxMinSharing::RemoveActivity(ActivityId v) {
  Activity& a = activities_[v];
  assert(a.live);
  MarkDirty(v);  // while it still counts: a constraint it made bindable expands
  for (const ActivityUse& u : a.uses) {
    // Out of the constraint's members: the last member takes its place.
    auto& members = constraints_[u.constraint].members;
    const Member last = members.back();
    members[u.member_index] = last;
    activities_[last.activity].uses[last.use_index].member_index = u.member_index;
    members.pop_back();
  }
  Count(a, -1);
  a.uses.clear();
  a.live = false;
  a.rate = 0;
  free_activities_.push_back(v);
}

void MaxMinSharing::SetCap(ActivityId v, double cap) {
  assert(cap > 0);
  Activity& a = activities_[v];
  if (a.cap == cap) return;
  MarkDirty(v);  // before and after the change
  Count(a, -1);
  a.cap = cap;
  Count(a, +1);
  MarkDirty(v);
}

void MaxMinSharing::MarkDirty(ActivityId v) {
  const Activity& a = activities_[v];
  if (a.uses.empty()) unconstrained_dirty_.push_back(v);
  dirty_activities_.push_back(v);
  for (const ActivityUse& u : a.uses) {
    Constraint& k = constraints_[u.constraint];
    k.expand |= CanBind(k);
    if (!k.dirty) {
      k.dirty = true;
      dirty_.push_back(u.constraint);
    }
  }
}

double MaxMinSharing::load(ConstraintId c) const {
  double sum = 0;
  for (const Member& m : constraints_[c].members) {
    const Activity& a = activities_[m.activity];
    sum += a.uses[m.use_index].coefficient * a.rate;
  }
  return sum;
}

std::span<const MaxMinSharing::ActivityId> MaxMinSharing::Solve() {
  solved_.clear();
  // An activity that crosses no constraint runs at its cap.
  for (ActivityId v : unconstrained_dirty_) {
    Activity& a = activities_[v];
    if (!a.live || !a.uses.empty()) continue;
    a.rate = a.cap;
    solved_.push_back(v);
  }
  unconstrained_dirty_.clear();
  ++visit_;
  // A constraint's edits were just counted: one that can bind now expands.
  for (ConstraintId c : dirty_) constraints_[c].expand |= CanBind(constraints_[c]);
  for (ConstraintId c : dirty_) {
    if (!constraints_[c].expand) continue;            // slack: its members' rates do not depend on it
    if (constraints_[c].visit == visit_) continue;  // already solved with an earlier dirty one
    Collect(c);
    SolveComponent();
  }
  // An edited activity that crosses only slack constraints runs at its cap.
  for (ActivityId v : dirty_activities_) {
    Activity& a = activities_[v];
    if (!a.live || a.visit == visit_ || a.uses.empty()) continue;
    a.visit = visit_;
    a.rate = a.cap;
    solved_.push_back(v);
  }
  dirty_activities_.clear();
  for (ConstraintId c : dirty_) constraints_[c].dirty = constraints_[c].expand = false;
  dirty_.clear();
  return solved_;
}

void MaxMinSharing::Collect(ConstraintId start) {
  component_constraints_.clear();
  component_activities_.clear();
  constraints_[start].visit = visit_;
  component_constraints_.push_back(start);
  // Breadth-first over constraint -> member activities -> their constraints.
  for (size_t i = 0; i < component_constraints_.size(); ++i) {
    for (const Member& m : constraints_[component_constraints_[i]].members) {
      Activity& a = activities_[m.activity];
      if (a.visit == visit_) continue;
      a.visit = visit_;
      component_activities_.push_back(m.activity);
      for (const ActivityUse& u : a.uses) {
        Constraint& k = constraints_[u.constraint];
        if (k.visit == visit_) continue;
        if (!k.expand && !CanBind(k)) continue;  // slack: it neither binds nor connects
        k.visit = visit_;
        component_constraints_.push_back(u.constraint);
      }
    }
  }
}

void MaxMinSharing::Fix(ActivityId v, double rate) {
  Activity& a = activities_[v];
  a.fixed = true;
  a.rate = rate;
  for (const ActivityUse& u : a.uses) {
    Constraint& k = constraints_[u.constraint];
    k.remaining = std::max(0.0, k.remaining - u.coefficient * rate);
  }
}

void MaxMinSharing::SolveComponent() {
  for (ConstraintId c : component_constraints_) {
    Constraint& k = constraints_[c];
    k.remaining = k.capacity;
    k.unfixed_weight = 0;
  }
  for (ActivityId v : component_activities_) {
    Activity& a = activities_[v];
    a.fixed = false;
    for (const ActivityUse& u : a.uses) {
      Constraint& k = constraints_[u.constraint];
      if (k.visit == visit_) k.unfixed_weight += u.coefficient * a.weight;  // slack ones are not in the set
    }
    solved_.push_back(v);
  }
  // The constraints that still have unfixed members, and the unfixed
  // activities: both shrink every round.
  std::vector<ConstraintId>& open = open_;
  open.clear();
  for (ConstraintId c : component_constraints_) {
    if (constraints_[c].unfixed_weight > 0) open.push_back(c);
  }
  std::vector<ActivityId>& unfixed = unfixed_;
  unfixed.assign(component_activities_.begin(), component_activities_.end());
  while (!unfixed.empty()) {
    // The level at which the next constraint saturates or activity reaches
    // its cap.
    double level = kNoCap;
    for (ConstraintId c : open) level = std::min(level, constraints_[c].remaining / constraints_[c].unfixed_weight);
    for (ActivityId v : unfixed) level = std::min(level, activities_[v].cap / activities_[v].weight);
    // Capped activities first (they take less than the level gives the
    // others), then every activity of a constraint saturated at the level.
    // Both sets are found before any is fixed: fixing moves `remaining`.
    std::vector<ActivityId>& at_cap = at_cap_;
    std::vector<ConstraintId>& saturated = saturated_;
    at_cap.clear();
    saturated.clear();
    for (ActivityId v : unfixed) {
      if (AtMost(activities_[v].cap / activities_[v].weight, level)) at_cap.push_back(v);
    }
    for (ConstraintId c : open) {
      if (AtMost(constraints_[c].remaining / constraints_[c].unfixed_weight, level)) saturated.push_back(c);
    }
    for (ActivityId v : at_cap) Fix(v, activities_[v].cap);
    for (ConstraintId c : saturated) {
      for (const Member& m : constraints_[c].members) {
        Activity& a = activities_[m.activity];
        if (!a.fixed) Fix(m.activity, std::min(a.cap, a.weight * level));
      }
    }
    std::erase_if(unfixed, [&](ActivityId v) { return activities_[v].fixed; });
    // A constraint is open while an unfixed activity crosses it. Its unfixed
    // weight is summed again rather than decremented: subtraction would leave
    // rounding slivers (a weight near zero, a level near infinity).
    std::erase_if(open, [&](ConstraintId c) {
      Constraint& k = constraints_[c];
      k.unfixed_weight = 0;
      for (const Member& m : k.members) {
        const Activity& a = activities_[m.activity];
        if (!a.fixed) k.unfixed_weight += a.uses[m.use_index].coefficient * a.weight;
      }
      return k.unfixed_weight == 0;
    });
  }
}

}  // namespace weft::sim
