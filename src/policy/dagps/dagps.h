// File: policy/dagps/dagps.h
//
// dagps: DAGPS (a.k.a. Graphene; Grandl et al., "Do the Hard Stuff First:
// Scheduling Dependent Computations in Data-Analytics Clusters",
// 001_a7e14c78d79bdb00.txt). One centralized scheduler that
//   1. when a job arrives, builds its preferred schedule offline
//      (builder.h, section 4) on the machines that are up and keeps each
//      task's priScore;
//   2. whenever machines have room, runs the online matcher of section 5 /
//      Fig. 8 per machine (matcher.h): among the ready tasks, pick the one
//      with the highest priScore x pScore x rPenalty - eta x srpt_j, unless
//      a user's deficit counter has reached kappa, in which case only that
//      user's tasks compete; launch it, charge the deficits, repeat until
//      nothing fits (or, with overbook > 0, nothing may be overbooked).
// Decisions are made once per instant, in OfferScheduler's round (everything
// that happened at that instant is known first): when new tasks became ready
// every machine is served, otherwise the machines that freed room.
//
// Parameters: eta (m of section 8.5, default 0.2), remote_penalty (rp,
// default 0.8, §8.5), overbook (fraction of cpu/disk/net capacity that may be
// reserved beyond a machine's capacity; 0 = off, the default; when > 0 the
// policy declares overbooking, the checker allows it and the contention
// model charges for it), kappa (unfairness bound as a fraction of the
// cluster; 0 = strictly fair; default 0.1, our choice: the paper gives no
// number), delta (threshold step of the builder, default 0.2: the paper gives
// no step; 0.1 triples the search for a plan about 1% shorter on the
// benchmark DAG, see BENCHMARKS.md),
// max_candidates (distinct T sets tried per part, 0 = all), plan_machines
// (machines in a plan's space, 0 = every machine that is up).
// relative_pri (default true, our departure): each candidate's priScore is
// divided by the best priScore among its job's candidates, so every job's
// next planned task scores 1 and the plan orders tasks within a job while
// packing and srpt arbitrate between jobs. With the paper's literal priScore
// (relative_pri=false) a newly arrived job's first tasks (about 1) beat an
// older job's last tasks (about 0), like last-come-first-served: on
// examples/default.json that costs 18% of average JCT, 59% with arrivals
// twice as dense, and it is behind or level on every workload measured
// (docs/reproductions/dagps.md, "Choosing the relative_pri default").
// Deliberate departures: the plan is built once, at arrival, for the whole
// job, assuming the job has the (up) cluster to itself; the plan's machine
// for a task is not used online (only locality preferences count for the
// remote penalty); no bundling (§7.2). Within a stage, the ready task with
// the highest priScore is the one scored and launched.
// Clairvoyant: the plan uses true durations (with estimate_noise if set).
#pragma once

#include "policy/policy.h"

namespace weft::policy::dagps {

extern const PolicyInfo kDagpsInfo;

}  // namespace weft::policy::dagps
