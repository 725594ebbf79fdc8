// File: tests/runtime/phase_queue_policy.h
//
// A test-only policy whose node agents control phases, for the runtime's
// end-to-end test of phases run for real (issue 12 §4): no registered policy
// controls phases yet (Ursa will). Its scheduler places ready tasks first fit
// in arrival order; each node agent keeps one FIFO queue per resource and
// runs at most one phase of each resource at a time (Ursa's monotask queues
// at their simplest). Registered only in the test build of weftd
// (weftd_test_policies) under the name "test-phase-queues".
#pragma once

#include "policy/policy.h"

namespace weft::testing {

extern const policy::PolicyInfo kPhaseQueuesInfo;

}  // namespace weft::testing
