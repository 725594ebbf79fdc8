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
//     normalised by L". We read "normalised by L" as divided by |L| (the
//     Euclidean norm), so s = (2L - R).R / |L| is in cluster-seconds: a job
//     alone (R = L) gets |R|, and a resource the admitted jobs need much of
//     (large L_r) weighs its R_r more, the paper's intuition. The other
//     reading, dividing component-wise by L_r, would give sum 2R_r - R_r^2/L_r,
//     which weighs every resource about alike and loses that intuition.
//     rank = s; bonus = W / s (the paper's inverse).
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
