// File: policy/dagps/plan_input.h
//
// PlanInput: what DAGPS's offline schedule builder (001_a7e14c78d79bdb00.txt,
// section 4) needs to know about one job and the machines it may use, as plain
// data: the job's stages (task count, demand, one duration per task, barrier
// parents and children) in a topological order, and the machines' capacities
// (the "m machines" of CreateSpace in Fig. 5).
//
// It is built from what a policy may see (PlanInputFromView: a clairvoyant
// JobView's durations, the up machines of the ClusterState) or, for tools and
// benchmarks outside a simulation, from the model (PlanInputFromJob). Tests
// write it by hand.
// Deliberate departure: pipelined edges are planned as barriers (a child task
// never overlaps its parent stage in the plan): always valid, at worst less
// compact than the real execution can be.
// Plain data; no state; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"
#include "model/cluster.h"
#include "model/job.h"
#include "model/resources.h"
#include "policy/cluster_state.h"
#include "policy/job_view.h"

namespace weft::policy::dagps {

struct PlanStage {
  Resources demand;
  std::vector<TimeUs> durations;  // one per task, each >= 1 us
  std::vector<uint32_t> parents;  // stage indices
  std::vector<uint32_t> children;
  uint32_t num_tasks() const { return static_cast<uint32_t>(durations.size()); }
};

struct PlanInput {
  std::vector<PlanStage> stages;
  std::vector<uint32_t> topo_order;  // parents before children
  std::vector<Resources> machines;   // capacities of the machines the plan may use

  uint64_t num_tasks() const;
  // stage_offsets returns, per stage, the index of its first task in a flat
  // task numbering (stage by stage, in stage index order).
  std::vector<uint64_t> stage_offsets() const;
  // AddEdge adds a barrier edge parent -> child (for hand-made inputs).
  void AddEdge(uint32_t parent, uint32_t child);
  // ComputeTopoOrder fills topo_order (Kahn, lowest index first); false on a cycle.
  bool ComputeTopoOrder();
};

// PlanInputFromView describes `job` with the durations the view allows
// (EstimatedDuration: the truth for a clairvoyant policy) on the machines of
// `cluster` that are up. `max_machines` > 0 keeps only the first that many.
PlanInput PlanInputFromView(const JobView& job, const ClusterState& cluster, uint32_t max_machines);

// PlanInputFromJob describes `job` on every machine of `cluster`, with the
// true durations (a stage given only by phases counts `default_duration_us`).
PlanInput PlanInputFromJob(const Job& job, const Cluster& cluster, TimeUs default_duration_us = kUsPerSecond);

}  // namespace weft::policy::dagps
