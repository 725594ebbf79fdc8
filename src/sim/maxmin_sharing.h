// File: sim/maxmin_sharing.h
//
// MaxMinSharing: weighted max-min fair rates for activities that share
// constraints, each activity capped, solved by progressive filling as
// SimGrid's LMM solver does (Velho, Mello Schnorr, Casanova and Legrand, "On
// the validity of flow-level TCP network models for grid and cloud
// simulations", ACM TOMACS 23(4), 2013; the solver itself: Casanova, Legrand
// and Quinson, "SimGrid: a generic framework for large-scale distributed
// experiments", UKSim 2008).
//
// The problem. Activity v has a rate x_v >= 0, a weight w_v > 0 and a cap
// b_v (x_v <= b_v; +infinity for none), and uses constraints c with
// coefficients a_vc > 0. Constraint c has a capacity C_c >= 0 and must hold
// sum_v a_vc x_v <= C_c. The rates chosen are the weighted max-min fair
// allocation: no x_v / w_v can grow without lowering some x_u / w_u that is
// not larger. Equivalently, every activity is at its cap or crosses a
// saturated constraint on which its x_v / w_v is the largest (its
// bottleneck). Capacity that a capped activity cannot use goes to the others
// sharing the constraint: the allocation is work-conserving.
//
// Progressive filling: all unfixed activities grow together, x_v = w_v L,
// from L = 0; the first constraint to saturate (L = remaining_c / sum of
// a_vc w_v over its unfixed activities) or activity to reach its cap
// (L = b_v / w_v) fixes the activities concerned; the others go on. Each
// round fixes at least one activity.
//
// Incremental: an edit (an activity added, removed or re-capped, a capacity
// changed) marks its constraints dirty; Solve re-solves only the connected
// sets of constraints and activities that contain a dirty constraint, and
// returns the activities whose rate it recomputed. Rates elsewhere are not
// touched (an event on one machine costs that machine's activities, not the
// cluster's).
//
// Slack constraints do not connect. A constraint whose members' caps sum to
// no more than its capacity (sum_v a_vc b_v <= C_c) can never bind: it holds
// whatever the rates. Such a constraint is left out of the connected sets (it
// does not join the activities that cross it), and an activity all of whose
// constraints are slack simply runs at its cap. A dirty constraint is
// expanded when it could bind before or after its edits (a removal may
// release activities it held back). With many capped flows over links that
// are rarely full (sim/network_flows.h), this keeps a re-solve to the few
// links that are.
//
// Every activity must cross at least one constraint or have a finite cap
// (otherwise its fair rate would be infinite). Ids are reused after Remove.
// Not thread-safe; owned by one execution model.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace weft::sim {

class MaxMinSharing {
 public:
  using ConstraintId = uint32_t;
  using ActivityId = uint32_t;
  static constexpr double kNoCap = std::numeric_limits<double>::infinity();

  // One constraint an activity uses, with how much of it one unit of the
  // activity's rate takes.
  struct Use {
    ConstraintId constraint;
    double coefficient;
  };

  // AddConstraint: a new constraint of `capacity` (>= 0).
  ConstraintId AddConstraint(double capacity);
  // SetCapacity: a constraint's capacity changes (a resource slowed by
  // over-subscription, a machine down).
  void SetCapacity(ConstraintId c, double capacity);
  double capacity(ConstraintId c) const { return constraints_[c].capacity; }

  // AddActivity: a new activity of `weight` (> 0) and `cap` (> 0, or kNoCap)
  // over `uses` (coefficients > 0; a constraint named twice counts twice).
  // Its rate is 0 until the next Solve.
  ActivityId AddActivity(double weight, double cap, std::span<const Use> uses);
  // RemoveActivity: the activity ends; its id may be handed out again.
  void RemoveActivity(ActivityId v);
  // SetCap: the activity's cap changes.
  void SetCap(ActivityId v, double cap);

  // Solve: re-solves every connected set touched since the last Solve and
  // returns the activities it assigned a rate to (each once, in no
  // particular order), valid until the next edit.
  std::span<const ActivityId> Solve();

  // rate: the activity's rate as of the last Solve.
  double rate(ActivityId v) const { return activities_[v].rate; }
  // load: sum of a_vc x_v over the constraint's activities, as of the last
  // Solve (<= capacity, up to rounding).
  double load(ConstraintId c) const;
  // activities: how many are live.
  size_t activities() const { return activities_.size() - free_activities_.size(); }

 private:
  struct Member {
    ActivityId activity;
    uint32_t use_index;  // which of the activity's uses this is
  };
  struct Constraint {
    double capacity = 0;
    std::vector<Member> members;
    double cap_sum = 0;     // sum of a_vc b_v over its capped members
    uint32_t uncapped = 0;  // its members without a cap
    bool expand = false;    // dirty, and could bind before or after its edits
    // Scratch for a solve.
    double remaining = 0;
    double unfixed_weight = 0;  // sum of a_vc w_v over unfixed members
    uint32_t visit = 0;         // the solve that last collected it
    bool dirty = false;
  };
  struct ActivityUse {
    ConstraintId constraint;
    double coefficient;
    uint32_t member_index;  // its place in the constraint's members
  };
  struct Activity {
    double weight = 1;
    double cap = kNoCap;
    double rate = 0;
    std::vector<ActivityUse> uses;
    bool live = false;
    bool fixed = false;   // scratch: its rate is decided in this solve
    uint32_t visit = 0;   // the solve that last collected it
  };

  void MarkDirty(ActivityId v);
  // CanBind: the constraint's members could want more than its capacity
  // (conservatively: a sum within a relative 1e-9 of it counts).
  bool CanBind(const Constraint& k) const { return k.uncapped > 0 || k.cap_sum > k.capacity * (1 - 1e-9); }
  // Count: the activity's cap enters (+1) or leaves (-1) its constraints' sums.
  void Count(const Activity& a, int sign);
  // Collect: the connected set around constraint `start`, into
  // component_constraints_ and component_activities_.
  void Collect(ConstraintId start);
  // SolveComponent: progressive filling over the collected set.
  void SolveComponent();
  void Fix(ActivityId v, double rate);

  std::vector<Constraint> constraints_;
  std::vector<Activity> activities_;
  std::vector<ActivityId> free_activities_;
  std::vector<ConstraintId> dirty_;
  std::vector<ActivityId> dirty_activities_;  // edited since the last Solve
  std::vector<ActivityId> unconstrained_dirty_;  // capped activities that cross no constraint
  uint32_t visit_ = 0;
  std::vector<ConstraintId> component_constraints_;
  std::vector<ActivityId> component_activities_;
  std::vector<ActivityId> solved_;
  // Scratch of SolveComponent, kept to spare an allocation per solve.
  std::vector<ConstraintId> open_, saturated_;
  std::vector<ActivityId> unfixed_, at_cap_;
};

}  // namespace weft::sim
