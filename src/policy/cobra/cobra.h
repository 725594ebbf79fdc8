// File: policy/cobra/cobra.h
//
// COBRA (Zhao et al., "COBRA: Toward Provably Efficient Semi-Clairvoyant
// Scheduling in Data Analytics Systems", ../shared/papers/000): a two-level
// policy. The cluster scheduler is the fair job scheduler (scheduler.h): it
// divides fixed-capacity containers among jobs by their desires, none above
// its desire, leftovers to deprived jobs, and grants them after the
// container response time. Each job's manager (manager.h) runs
//   - Af (Algorithm 1, af.h): once per period L its desire becomes d/ρ when
//     the period was inefficient (utilization u < δ and no task waited), d
//     when efficient and deprived, d·ρ when efficient and satisfied; u is
//     the max over resources of what the job's containers really used
//     (ContainerInfo::used, sampled ten times per period and at every event)
//     divided by their size, averaged over the period;
//   - Pdelay (Algorithm 2): on every container update, a node-local waiting
//     task first, a rack-local one once it has waited τ·p (p its known
//     processing time), any once it has waited 2τ·p and the container is at
//     least 1-δ free in every resource; waits accumulate per task from the
//     moment it becomes ready, and timers bring the job back when one
//     unlocks a level;
//   - reusable containers: several tasks run in one container at once while
//     its free room (per resource) allows; containers stay across tasks and
//     go back when Af lowers the desire (idle ones at once, busy ones as they
//     empty) or the job scheduler lowers the allocation (kAllocation; no
//     preemption).
// Knowledge: semi-clairvoyant (a stage's demands and durations once it is
// released; the engine enforces it).
//
// Defaults and why (the paper gives ρ, δ, L and the initial desire):
//   rho 1.5, delta 0.7, period 5 s, initial desire 1 (sections V, VII);
//   container 1 core and 2 GB (the paper gives none: the Google trace's
//   tasks ask for small fractions of a machine, and 2 GB per core is the
//   ratio of the §VII-A machines, 8 cores and 16 GB, so they hold 8 each);
//   tau 0.1 (none in the paper: delay scheduling waits a small fraction of a
//   task's length, and Theorem 5's waste term 2τ/θ stays small);
//   response_time 1 s (Table I: 996 ms average; Fig. 2 assumes 1 s).
//
// Departures: the desire never falls below 1 (a job with work left needs a
// container); periods are aligned on a global grid; the division is
// recomputed whenever desires, jobs, machines or containers change, not
// only at period boundaries, so a container a job gives back mid-period goes
// to a deprived job at once; a stage whose tasks outgrow the container size
// grows the job's containers (as executor does); Pdelay looks, per waiting
// stage, at the first rack-local task and the stage's first waiting task
// (a stage's tasks become ready together and share p, so their waits agree;
// a retried task's wait restarts); stage demands, not per-task overrides
// (the reader refuses `demands` for now); no locality cost yet (the reader
// refuses `locality_cost` until the engine runs it), so waiting for
// locality cannot pay in simulation yet.
//
// Baselines built from the same roles (config.h):
//   - cobra-default: the paper's Default: one task per fixed-capacity
//     container, returned when the task ends; the desire is the job's
//     waiting plus running tasks; fair division; plain delay scheduling
//     (node_wait, rack_wait, per task). Non-clairvoyant.
//   - spark-dynamic: Spark's dynamic allocation (DRS): the target grows by
//     1, 2, 4, ... executors per backlog timeout while tasks wait, up to what
//     the waiting and running tasks can use, and an executor idle for
//     idle_timeout goes back; reusable executors; plain delay scheduling;
//     it starts with initial_executors (1; Spark's default is 0, which here
//     would only add a backlog timeout to every job) and ignores the job
//     scheduler's allocation (YARN preempts nothing by default).
//     Non-clairvoyant.
// spark-static (SRS) is baseline/executor with the paper's defaults.
#pragma once

#include <memory>

#include "policy/cobra/config.h"
#include "policy/policy.h"

namespace weft::policy::cobra {

extern const PolicyInfo kCobraInfo;
extern const PolicyInfo kCobraDefaultInfo;
extern const PolicyInfo kSparkDynamicInfo;

// MakeCobraPolicy builds the policy from a configuration directly (tests,
// e.g. with CobraConfig::broken_af).
std::unique_ptr<Policy> MakeCobraPolicy(const CobraConfig& config, Knowledge knowledge);

}  // namespace weft::policy::cobra
