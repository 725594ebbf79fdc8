// File: policy/ras/utility.h
//
// RAS's performance model (Polo et al., "Resource-aware Adaptive Scheduling
// for MapReduce Clusters", Middleware 2011, §3.3 Eq. 1-3) and the completion
// time estimator's s_req (§3.2), as pure functions: no state, no clock.
//
// u = u^M(s_alloc) + u^R(r_alloc), capped at 1, where
//   u^M = (s_alloc - s_req) / (s_pend - s_req)   when s_alloc >= s_req (0..1)
//   u^M = log(s_alloc) / log(s_req) - 1          when s_alloc <  s_req (<0)
//   u^R = log(r_alloc) / log(r_pend) - 1                           (-1..0)
// The equations are undefined in corner cases; MapUtility and ReduceUtility
// give each a finite value that keeps the order the equations intend
// (docs/policies.md, "ras"):
//   - s_alloc >= s_pend (every pending map placed, or none pending): 1, the
//     paper's cap; this also covers s_pend = s_req, where Eq. 2's linear
//     branch divides by zero;
//   - s_alloc = 0 < s_req (log 0 = -inf): kNoMapSlot = -3, below every value
//     a job with one map slot or more can have (u^M >= -1, u^R >= -1, so
//     u >= -2): "at least one slot must be allocated" stays the first need;
//   - s_req <= 1 with s_alloc < s_req: only s_alloc = 0 is possible (slots
//     are whole), the case above; log(s_req) = 0 is never divided by;
//   - r_alloc >= r_pend (no reducer waits, or none left): 0;
//   - r_alloc = 0 (log 0): -1, the bottom of the range the paper states;
//     with r_pend = 1 (log 1 = 0, six of the paper's nine jobs) one reducer
//     gives 0 and none -1. For r_pend >= 2, Eq. 3 itself gives -1 for one
//     reducer, so none and one tie: reducers are placed before maps and not
//     by utility (Algorithm 1, lines 1-8), so the tie never decides anything.
// Not thread-affine; pure.
#pragma once

#include <cstdint>

namespace weft::policy::ras {

// kNoMapSlot: u^M of a job that needs map slots and has none.
inline constexpr double kNoMapSlot = -3.0;

// MapUtility: Eq. 2 with the cases above. Counts are whole numbers >= 0.
double MapUtility(double s_alloc, double s_req, double s_pend);
// ReduceUtility: Eq. 3 with the cases above.
double ReduceUtility(double r_alloc, double r_pend);
// JobUtility: Eq. 1, capped at 1.
double JobUtility(double s_alloc, double s_req, double s_pend, double r_alloc, double r_pend);

// RequiredMapSlots: the Job Completion Time Estimator's s_req (§3.2; the paper
// leaves the method to its reference [6]): the concurrency that finishes the
// s_pend remaining maps of mean length `map_us` by the goal, leaving
// `reduce_us` (the mean reduce-phase length) for the reducers after the last
// map: ceil(s_pend * map_us / (goal - now - reduce_us)). When that time is
// shorter than one map wave (goal passed, or "as soon as possible" for jobs
// without a goal, goal = now), every pending map is required: s_pend.
// Clamped to [min(1, s_pend), s_pend].
uint32_t RequiredMapSlots(uint32_t s_pend, double map_us, double reduce_us, double time_left_us);

}  // namespace weft::policy::ras
