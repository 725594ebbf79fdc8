// File: policy/ursa/job_order.h
//
// Ursa's job orders (002_872a20c16a9dbee0.txt section 4.2.2-4.2.3). Each
// gives a job a rank (smaller is served first, by admission, by the node
// queues) and a placement bonus added to the score of each of its stages'
// plans (larger is placed first):
//   - EJF: rank = arrival time; bonus = W * T, T the seconds since arrival.
//   - SRJF: R is the job's remaining per-resource work, L the sum of R over
//     admitted jobs, each resource's work counted in seconds of the whole
//     cluster's rate for it (so cores, MB of disk and MB of net weigh alike).
//     The paper's score is "the inverse of the dot product of (2L - R) and R
//     normalised by L". We read "normalised by L" as both vectors measured
//     in units of the load's size |L| (Euclidean norm):
//     s = ((2L - R) / |L|).(R / |L|) = (2L - R).R / |L|^2, a pure number in
//     [0, 1] (a job alone, R = L, gets 1; a small job near 0), in which a
//     resource the admitted jobs need much of (large L_r) weighs its R_r
//     more, the paper's intuition. The other reading, dividing component-wise
//     by L_r, gives sum 2R_r - R_r^2/L_r, which weighs every resource about
//     alike, loses that intuition and keeps R's units. rank = s; bonus =
//     W / s (the paper's inverse; at least W, so with W = 1 it outweighs the
//     mean F of a plan's tasks, at most 4, once jobs differ by a few times).
// Plain functions; thread-safe.
#pragma once

#include "policy/common/monotasks.h"

namespace weft::policy::ursa {

enum class JobOrder { kEjf, kSrjf };

// SrjfScore: s above (R and L in cluster-seconds); a job with no remaining
// work scores 0 (served first: it is about to end).
double SrjfScore(const MonotaskWork& remaining, const MonotaskWork& load);

// PlacementBonus: W * T (EJF) or W / s (SRJF, capped at W * 1e6 for s near 0).
double PlacementBonus(JobOrder order, double weight, double elapsed_s, double srjf_score);

}  // namespace weft::policy::ursa
