// File: policy/ursa/ursa.h
//
// Ursa (Xu et al., "Ursa: ...", 002_872a20c16a9dbee0.txt): monotasks, job
// admission by memory, stage-aware per-resource placement (Algorithm 1) and
// per-resource node queues. Roles: a job manager per job (job_manager.h),
// one cluster scheduler (scheduler.h), a node agent per machine that
// controls phases (node_agent.h). docs/policies.md ("Ursa") has the design
// and docs/reproductions/ursa.md the reproduction.
//
// Deliberate departures: the scheduler keeps each job's pending tasks (the
// paper's job manager sends their usage and the scheduler places them, the
// same split); a stage without `phases` runs whole, reserving its demand (the
// platform cannot split it), while Ursa estimates it by derived monotasks
// (common/monotasks.h); processing rates are measured over the whole run, not
// a sliding window; M(j) and I(t) fall back as estimates.h says when the
// workload does not give them.
// Knowledge: clairvoyant (R is initialised from the jobs' true work, the
// paper's "historical information" for recurring jobs).
#pragma once

#include "policy/policy.h"

namespace weft::policy::ursa {

extern const PolicyInfo kUrsaInfo;
// ursa-yarn (Y+U): yarn_manager.h.
extern const PolicyInfo kUrsaYarnInfo;

}  // namespace weft::policy::ursa
