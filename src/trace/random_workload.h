// File: trace/random_workload.h
//
// RandomWorkload: a seeded generator of small, valid, varied workloads for
// property tests (every policy must schedule any of them completely, validly
// and deterministically). One seed always gives the same workload, on every
// machine: all draws come from core/random.h's Rng.
//
// What it draws, within RandomWorkloadOptions' bounds:
//   - a small heterogeneous cluster: 1-3 machine groups of 1-2 machines with
//     different capacities (every machine has some cpu, mem, disk and net, so
//     that tasks with phases can run anywhere), racks of random size;
//   - 1-3 users, each with a weight and a priority that their jobs carry;
//   - jobs arriving at random times (exponential gaps, some exactly together
//     to exercise tie-breaking), some with a deadline;
//   - per job a DAG shaped as a single stage, a chain, a diamond, a fan-out,
//     a fan-in or a random DAG; an edge between two stages of the same size
//     is sometimes pipelined (one-to-one);
//   - per stage a task count, a duration (sometimes per-task durations), a
//     demand that fits at least one machine, sometimes a usage below the
//     demand, a locality list for some tasks, and sometimes phases (monotasks)
//     instead of a duration;
//   - with `locality_cost`, a locality cost on the cluster and an input size
//     on every stage that lists preferred machines.
// The generator writes the workload as FORMATS.md section 1 JSON and reads it
// back with ParseWorkload, so every invariant the reader guarantees
// (topo_order, parents/children, num_tasks, demands that fit) holds by
// construction. Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "model/workload.h"

namespace weft {

struct RandomWorkloadOptions {
  uint32_t min_jobs = 1;
  uint32_t max_jobs = 5;
  uint32_t max_stages = 5;        // per job (diamonds and fans may use up to this many)
  uint32_t max_tasks = 6;         // per stage
  uint32_t max_machines = 4;      // in the whole cluster
  double max_duration_s = 3.0;    // longest task duration
  double mean_interarrival_s = 1.0;
  double same_size_prob = 0.4;    // a child stage copies its first parent's task count
  double pipelined_prob = 0.5;    // an edge between equal-size stages is pipelined
  double usage_prob = 0.5;        // a stage's usage is below its demand
  double locality_prob = 0.3;     // a stage lists preferred machines for some tasks
  double phases_prob = 0.15;      // a stage's tasks are made of phases (monotasks)
  double durations_prob = 0.4;    // a stage gives one duration per task
  double deadline_prob = 0.2;     // a job has a deadline
  // Workload-model additions (docs/workload-format.md), off by default; drawn
  // only when above 0, so the workloads of other options do not change.
  double shuffle_prob = 0;        // a barrier edge is a shuffle edge (slow start as below, random shuffle_mb)
  // The shuffle edges' slow start; 0 draws one of 0.25, 0.5, 0.75, 1 per edge.
  // Below 1, a policy unaware of shuffle edges may fill the cluster with
  // waiting reducers and starve their own maps (Hadoop's slow-start deadlock).
  double slowstart = 0;
  double task_demands_prob = 0;   // a stage gives one demand per task (and sometimes usages)
  // The cluster charges a locality cost (bandwidths or factors, drawn), and
  // stages with locality lists get an input_mb to read.
  bool locality_cost = false;
};

// RandomWorkloadJson returns the workload for `seed` as JSON text (useful to
// print when a property fails, or to save as a regression input).
std::string RandomWorkloadJson(uint64_t seed, const RandomWorkloadOptions& options = {});

// RandomWorkload returns the workload for `seed`, parsed and validated. An
// error means a generator bug (or options that allow nothing, e.g. max_jobs 0).
absl::StatusOr<Workload> RandomWorkload(uint64_t seed, const RandomWorkloadOptions& options = {});

}  // namespace weft
