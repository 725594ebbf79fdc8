// File: policy/baseline/drf.h
//
// drf: Dominant Resource Fairness across users (Ghodsi et al., "Dominant
// Resource Fairness: Fair Allocation of Multiple Resource Types", NSDI'11,
// section 4: progressive filling, Algorithm 1). A user's dominant share
// is the largest, over cpu, memory, disk and network, of what its running
// tasks reserve divided by the cluster's total capacity of that resource;
// weighted DRF divides it by the user's weight (the weight is the
// largest weight of the user's active jobs, see policy/common/fair_share.h).
// Whenever a machine has room it goes to the user with the lowest weighted
// dominant share that has a ready task fitting there; that user's jobs are
// served FIFO, one task at a time, re-evaluating after every launch.
// Non-clairvoyant: it uses demands, never durations.
// Departures: the denominator is the total capacity of all machines, up or
// down (the paper's cluster is static); no preemption.
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kDrfInfo;

}  // namespace weft::policy::baseline
