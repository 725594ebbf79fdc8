// File: policy/sparrow/sampler.h
//
// Probe sampling for Sparrow (§3.2-3.3, §4.1): choose k nodes uniformly at
// random, distinct while enough are eligible, among the machines that are
// up and whose capacity can hold the task's demand (a job-level constraint),
// restricted to a task's candidate list when it has one (a task-level
// constraint; all machines when none of the candidates is up). Random draws
// come only from the caller's ctx.rng().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policy/context.h"

namespace weft::policy::sparrow {

// SampleMachines appends k sampled machines to `out` (fewer only when no
// machine is eligible at all).
void SampleMachines(Context& ctx, const Resources& demand, std::span<const MachineId> candidates, uint64_t k,
                    std::vector<MachineId>& out);

// InCandidateSet: whether `m` is one of the machines SampleMachines draws
// from for this demand and candidate list (up, big enough, and among the
// candidates unless none of them is eligible).
bool InCandidateSet(const ClusterState& cluster, const Resources& demand, std::span<const MachineId> candidates,
                    MachineId m);

// ProbeCount: probes for m tasks at ratio d: ceil(d·m) for a batch; for one
// task (m = 1, per-task sampling) floor(d) plus one with probability frac(d).
uint64_t ProbeCount(Context& ctx, double d, uint64_t m, bool per_task);

}  // namespace weft::policy::sparrow
