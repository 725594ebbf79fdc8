// File: policy/baseline/random.h
//
// random: random placement, the "Random order" baseline of DAGPS
// (001_a7e14c78d79bdb00.txt, section 8.1). Each newly ready task goes to a
// machine drawn uniformly among those where it fits; when a machine frees
// resources it is given a ready group drawn uniformly among those whose
// demand fits there, one task at a time, until none fits. All draws come from
// the scheduler's ctx_.rng(), so a run is a function of its seed.
// Departure from Sparrow's "random placement" (003_1ee8f205cea12618.txt,
// section 3.2): there a task queues at a random worker; here it waits in the
// scheduler until some machine has room, so nothing waits behind a busy one.
// Non-clairvoyant: it needs no durations.
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kRandomInfo;

}  // namespace weft::policy::baseline
