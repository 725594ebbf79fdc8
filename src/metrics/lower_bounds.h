// File: metrics/lower_bounds.h
//
// Lower bounds on the completion time of one job's DAG, exactly the four
// formulas of DAGPS (001_a7e14c78d79bdb00.txt, section 6, Figure 9), with C
// the capacity available to the job (for `weft bounds` and the per-job
// ratios of a run: the whole cluster, as if the job ran alone):
//
//   (1a) CPLen  = the longest path through the DAG, each task counting its
//                 duration. Task-level: a barrier edge makes every task of the
//                 child wait for the longest task of the parent; a pipelined
//                 edge makes task i wait for task i of the parent only.
//   (1b) TWork  = max over resources r of (sum over tasks of duration x
//                 demand_r) / C_r; resources no task uses are skipped.
//   (1c) ModCP  = max over paths p of stages, max over s on p of
//                 max(TWork_s, CPLen_s) + sum over the other stages s' of p of
//                 the shortest task of s'. TWork_s is the stage's work over C;
//                 CPLen_s of one stage alone is its longest task (its tasks are
//                 independent). Computed in O(stages + edges) as
//                 max over s of (longest prefix into s + W_s + longest suffix
//                 out of s), prefixes and suffixes summing shortest tasks.
//   (1d) NewLB  = sum over the barrier partitions G' of G of
//                 max(CPLen_G', TWork_G', ModCP_G'), each computed on the
//                 subgraph G' alone.
//
// Barrier partitions (section 4.4: "due to barriers it is possible to
// partition a DAG into parts that are totally ordered"): the finest split of
// the stages into parts G1 < G2 < ... such that every task of an earlier part
// must end before any task of a later part can start. Valid cuts are nested,
// so the finest split is unique, and every cut is a prefix of any topological
// order. A prefix is a cut iff every stage of it without children inside it
// has a barrier edge to every stage of the rest without parents in the rest
// (a pipelined edge between one-task stages counts as a barrier). Found in one
// sweep of the topological order, O(stages + edges).
//
// Why each is a lower bound (what the tests check against an exact solver):
// CPLen, TWork as usual; ModCP: every task of s waits for a chain of tasks
// through the stages before s on p (at least the shortest of each), s's own
// tasks need max(TWork_s, CPLen_s) from the first starting to the last ending,
// and the last-ending task of s has a chain of descendants through the stages
// after it on p (pipelined or barrier, every task has a parent task in a parent
// stage and a child task in a child stage); NewLB: parts run one after another.
//
// Durations are the shortest a task can take: its duration, or for a task made
// of phases the sum of its phases each at the cluster's fastest bandwidth,
// rounded as the engine rounds them. Every bound is rounded up to a whole
// microsecond (a makespan is a whole number of microseconds). Deliberate
// departure: none in the formulas; the bounds hold for schedules within
// capacity, so a policy that overbooks (declares overbooking) may beat them.
// Plain functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "model/cluster.h"
#include "model/job.h"
#include "model/resources.h"

namespace weft {

// Work: sum of duration (us) x demand (micro-units) per resource, exact.
using WorkSum = unsigned __int128;
using WorkVector = std::array<WorkSum, kNumResources>;

// BoundCapacity: what the bounds need to know about the cluster: the capacity
// C available to the job, and the fastest bandwidth per resource (for phases).
struct BoundCapacity {
  Resources capacity;  // C
  Resources fastest;   // per resource, the largest capacity of one machine

  // Of: the whole cluster (a job alone on it).
  static BoundCapacity Of(const Cluster& cluster);
};

struct JobBounds {
  TimeUs cplen_us = 0;
  TimeUs twork_us = 0;
  TimeUs modcp_us = 0;
  TimeUs newlb_us = 0;
  uint32_t partitions = 0;  // barrier partitions of the DAG (>= 1)
  WorkVector work{};        // the job's total work per resource
};

// ComputeJobBounds returns the four bounds of `job` given `cap`. O(tasks of
// stages with per-task durations + stages + edges).
JobBounds ComputeJobBounds(const Job& job, const BoundCapacity& cap);

// BarrierPartitions returns, for `job`, the positions in job.topo_order where
// each barrier partition starts (the first is 0), finest split.
std::vector<uint32_t> BarrierPartitions(const Job& job);

// WorkBoundUs: ceil(max over r with work of work_r / capacity_r), in us;
// resources with no capacity are skipped.
TimeUs WorkBoundUs(const WorkVector& work, const Resources& capacity);

// MinTaskUs: the shortest time task `i` of `stage` can take on any machine.
TimeUs MinTaskUs(const Stage& stage, uint32_t i, const Resources& fastest);

// WorkloadBound accumulates the makespan lower bound of a whole workload
// sharing C: max(max over jobs (arrival + NewLB) - first arrival,
// total work / C). Add every job once, in any order.
class WorkloadBound {
 public:
  explicit WorkloadBound(const Resources& capacity) : capacity_(capacity) {}
  void Add(const Job& job, const JobBounds& bounds);
  TimeUs MakespanLowerBoundUs() const;

 private:
  Resources capacity_;
  WorkVector work_{};
  TimeUs first_arrival_us_ = kTimeInfinite;
  TimeUs last_bound_end_us_ = 0;  // max over jobs of arrival + NewLB
};

}  // namespace weft
