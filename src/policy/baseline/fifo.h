// File: policy/baseline/fifo.h
//
// fifo: Hadoop's original FIFO scheduler. Jobs are served in order of
// priority (higher first) and then arrival; within a job, stages in index
// order and tasks in index order; each task goes to the first machine (by
// number) with room for it. Later jobs use what earlier ones cannot
// (backfilling). Non-clairvoyant: it needs no durations.
#pragma once

#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kFifoInfo;

}  // namespace weft::policy::baseline
