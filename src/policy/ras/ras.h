// File: policy/ras/ras.h
//
// ras: Resource-aware Adaptive Scheduling for MapReduce clusters (Polo et
// al., Middleware 2011). Job slots sized by the job's resource profile per
// phase instead of a fixed slot count per machine; a utility per job from its
// completion-time goal (§3.3, utility.h); every `period`, a placement that
// raises the lowest utility while packing machines by the profiles (§3.4,
// placement.h); a Task Scheduler that moves to it as tasks end without ever
// over-committing a machine (§3.5, scheduler.h). One cluster scheduler, no
// job managers or node agents. Semi-clairvoyant: profiles (demands, phases)
// of a stage once released, as the paper's profiles from sandbox runs (§3.6).
// Departures (docs/policies.md, "ras"): s_req by the formula of utility.h
// (the paper defers to its reference [6]); a cycle also runs when a job
// arrives; without profiled phases a reducer's shuffle and reduce profiles
// are its stage's demand.
#pragma once

#include "policy/policy.h"

namespace weft::policy::ras {

extern const PolicyInfo kRasInfo;

}  // namespace weft::policy::ras
