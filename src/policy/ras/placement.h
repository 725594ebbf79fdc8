// File: policy/ras/placement.h
//
// RAS's Placement Algorithm (Polo et al., Middleware 2011, §3.4, Algorithm 1)
// for one control cycle, as a pure function of its inputs: the jobs (their
// per-slot resource profiles, pending work and s_req), the TaskTrackers'
// capacities, and the placement running now. It returns the placement the
// Task Scheduler should move toward until the next cycle.
//
// A slot is created for a job and a slot kind when a task is placed, sized by
// the job's profile for that kind: a TaskTracker takes slots while the sum of
// their profiles fits its capacity in every resource (room_for_new_job_slot),
// never a fixed count.
//   1. Reducers (lines 1-8): for each job in order, one pass over the
//      TaskTrackers sorted by (reducers placed there, this job's reducers
//      there, id), one new reducer on each with room, while the job has
//      placeable reducers left: reducers spread, and two of one job meet only
//      when there are more reducers than TaskTrackers.
//   2. Maps (lines 9-25), `max_rounds` rounds, or fewer when a round changes
//      nothing: on each TaskTracker, map slots are taken from the jobs of
//      highest utility only while each stays at or above the utility the
//      lowest job had (lines 13-19: the slot whose removal would drop its job
//      below is put back), until the lowest job has room; then slots go one
//      by one to the lowest-utility job with room until no job has room
//      (lines 20-23: greedy, for utilization).
// Utility ties are broken by the job's index (the caller's order: arrival).
// Departures: line 26 (switching reducers' profile from shuffle to reduce)
// is the caller's, through the profile it passes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/resources.h"
#include "policy/common/slot_book.h"

namespace weft::policy::ras {

// PlacementJob: one job's inputs to a cycle.
struct PlacementJob {
  Resources map_profile;     // what a map slot of the job holds
  Resources reduce_profile;  // what a reduce slot holds (shuffle or reduce)
  uint32_t s_pend = 0;       // maps not finished (the most map slots it can use)
  uint32_t s_req = 0;        // map slots needed to meet its goal
  uint32_t r_pend = 0;       // reducers pending execution (for the utility)
  uint32_t r_placeable = 0;  // reducers ready or running (the most reduce slots it can use)
};

// Placement: tasks per job (the caller's index) and TaskTracker, per kind.
// Sparse: per TaskTracker, the jobs with tasks there (by index), and per job
// its totals, kept by Add. On a large cell almost every (job, TaskTracker)
// count is 0, and a dense jobs x machines matrix made every cycle cost that
// product however little ran.
class Placement {
 public:
  // Cell: one job's tasks on one TaskTracker (never both counts 0).
  struct Cell {
    uint32_t job = 0;
    uint32_t map = 0;
    uint32_t reduce = 0;
    uint32_t count(SlotKind kind) const { return kind == SlotKind::kMap ? map : reduce; }
  };

  Placement() = default;
  Placement(size_t jobs, size_t machines) : on_(machines), map_total_(jobs), reduce_total_(jobs) {}

  size_t jobs() const { return map_total_.size(); }
  size_t machines() const { return on_.size(); }
  uint32_t count(SlotKind kind, size_t job, size_t m) const;
  uint32_t map(size_t job, size_t m) const { return count(SlotKind::kMap, job, m); }
  uint32_t reduce(size_t job, size_t m) const { return count(SlotKind::kReduce, job, m); }
  // On: the jobs with tasks on TaskTracker m, by ascending index.
  std::span<const Cell> On(size_t m) const { return on_[m]; }
  uint32_t MapTotal(size_t job) const { return map_total_[job]; }
  uint32_t ReduceTotal(size_t job) const { return reduce_total_[job]; }

  // Add changes job's `kind` tasks on m by delta (the count stays >= 0);
  // Set sets them.
  void Add(SlotKind kind, size_t job, size_t m, int delta);
  void Set(SlotKind kind, size_t job, size_t m, uint32_t count) {
    Add(kind, job, m, static_cast<int>(count) - static_cast<int>(this->count(kind, job, m)));
  }

 private:
  std::vector<std::vector<Cell>> on_;  // [machine], cells by job
  std::vector<uint32_t> map_total_;    // [job]
  std::vector<uint32_t> reduce_total_;
};

// Utility: Eq. 1 for `job` under `placement` (utility.h).
double Utility(const PlacementJob& job, const Placement& placement, size_t index);

// Place runs Algorithm 1 from `current` (which must have jobs.size() jobs
// and capacity.size() machines), whose tasks hold `reserved` on each machine
// now (what the platform really reserved: a slot taken away frees its job's
// profile). Machines with `up[m]` false get nothing new. Its cost follows the
// tasks placed and the changes made, plus a pass over the machines per round
// while some job wants a map slot. When jobs have reducers left, the
// machines are ordered once, and each such job walks them in order until its
// reducers are placed (to the end only when few machines have room for it).
Placement Place(std::span<const PlacementJob> jobs, std::span<const Resources> capacity,
                std::span<const Resources> reserved, const std::vector<bool>& up, Placement current,
                uint32_t max_rounds);

}  // namespace weft::policy::ras
