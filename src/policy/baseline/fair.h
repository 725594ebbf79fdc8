// File: policy/baseline/fair.h
//
// fair: the Hadoop/YARN Fair Scheduler (Zaharia et al., "Delay Scheduling",
// EuroSys'10, section 2, without the delay; YARN's FairSharePolicy): max-min
// fair sharing of cores across users. Whenever a machine has room, it goes to
// the user with the lowest allocated cores / weight among users with a ready
// task that fits there; that user's jobs are served in FIFO order (priority,
// then arrival), one task at a time, and shares are re-evaluated after every
// launch. A user's weight is the largest weight of its active jobs (see
// policy/common/fair_share.h for why). Non-clairvoyant.
// Departures: no preemption; no reservations (a task too large for the free
// room of any machine waits while smaller tasks of richer users use that
// room, as in Hadoop 1's Fair Scheduler; YARN would reserve); no minimum
// shares or per-pool policies; a user's jobs share its allotment FIFO.
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kFairInfo;

}  // namespace weft::policy::baseline
