// File: model/job.h
//
// The job model: a job is a DAG of stages; a stage is a set of parallel tasks
// that share one profile (duration, demand, usage, phases, command) with
// optional per-task overrides (durations, locality). Homogeneous stages store
// their profile once, never one object per task, so traces with tens of
// millions of tasks fit in memory.
//
// Edges are barrier (every task of the child waits for every task of the
// parent), pipelined (task i of the child waits for task i of the parent) or
// shuffle (Hadoop's reduce slow start: a child task may launch once a fraction
// `slowstart` of the parent's tasks is done; it then shuffles, copying
// `shuffle_mb` from each parent task over the network, until the last parent
// task has ended, and only then does its own work). A shuffle edge with
// slowstart 1 and no shuffle_mb waits exactly like a barrier.
// Jobs are plain data built by the workload reader (trace/) and immutable
// afterwards; safe to share between threads for reading.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/time.h"
#include "model/resources.h"

namespace weft {

enum class EdgeKind : uint8_t { kBarrier, kPipelined, kShuffle };

struct Edge {
  uint32_t stage = 0;  // index of the other stage in the job
  EdgeKind kind = EdgeKind::kBarrier;
  // Shuffle edges only (1 and 0 for the other kinds): the fraction of the
  // parent's tasks done before a child task may launch, in (0, 1]; and the MB
  // each parent task's output sends to each child task over the network.
  double slowstart = 1.0;
  double shuffle_mb = 0;

  // WaitsForWholeParent: no child task may start its own work before every
  // task of the parent stage is done (barrier and shuffle edges).
  bool WaitsForWholeParent() const { return kind != EdgeKind::kPipelined; }
};

// Phase: one part of a task's life, run in order. Two kinds:
//  - a resource phase (a monotask, Ursa): uses a single resource; `work` is
//    core-seconds for cpu and MB for net and disk;
//  - a profiled phase (RAS Table 2, `profiled`): lasts `duration_us` alone on
//    an idle machine and, while it runs, its `demand` and `usage` replace the
//    task's (memory included), so a task's footprint changes during its life.
// A stage's phases are all of one kind (the reader checks). `name` is an
// optional label ("shuffle", "reduce") for either kind.
struct Phase {
  Resource resource = kCpu;
  double work = 0;
  bool profiled = false;
  TimeUs duration_us = 0;
  Resources demand;
  Resources usage;
  std::string name;
};

struct Stage {
  std::string name;
  // The task type, e.g. "map" or "reduce" (RAS binds job slots to it); free
  // text, empty when the file gives none.
  std::string kind;
  uint32_t num_tasks = 0;
  // Each task's running time on an idle machine. When the file gives only
  // phases (duration_from_phases), it is the phases' time run alone on the
  // cluster's fastest machine for each resource: a nominal figure for
  // estimates and bounds; the simulator runs the phases themselves.
  TimeUs duration_us = 0;
  bool duration_from_phases = false;
  std::vector<TimeUs> durations_us;  // empty, or one per task
  Resources demand;                  // peak reservation
  Resources usage;                   // average real use; equals demand unless given
  // Per-task overrides of demand and usage: empty (every task uses the stage's,
  // and no memory per task is spent) or one per task.
  std::vector<Resources> demands;
  std::vector<Resources> usages;
  // MB of input each task reads (where its `locality` machines hold it); per
  // task override input_mbs: empty or one per task.
  double input_mb = 0;
  std::vector<double> input_mbs;
  std::vector<Phase> phases;         // empty: the task is one indivisible unit
  std::vector<std::vector<MachineId>> locality;  // per task, may be shorter than num_tasks
  std::string command;               // empty: built-in busy task
  std::vector<Edge> parents;
  std::vector<Edge> children;

  // TaskDuration: the nominal running time of task `i` on an idle machine.
  TimeUs TaskDuration(uint32_t i) const {
    return durations_us.empty() ? duration_us : durations_us[i];
  }
  const Resources& TaskDemand(uint32_t i) const { return demands.empty() ? demand : demands[i]; }
  // A task with its own demand but no own usage uses its demand.
  const Resources& TaskUsage(uint32_t i) const {
    if (!usages.empty()) return usages[i];
    return demands.empty() ? usage : demands[i];
  }
  double TaskInputMb(uint32_t i) const { return input_mbs.empty() ? input_mb : input_mbs[i]; }
  // Preferences: the machines task `i` prefers; empty when it has none.
  std::span<const MachineId> Preferences(uint32_t i) const {
    if (i < locality.size()) return locality[i];
    return {};
  }
  bool HasPipelinedParent() const;
  // HasProfiledPhases: the stage's phases are profiled ones (see Phase).
  bool HasProfiledPhases() const { return !phases.empty() && phases.front().profiled; }
};

// PhasesNominalUs: the time of `phases` run one after another, each alone
// on the machine of `cluster` with the most of its resource (cpu phases on
// one core; a profiled phase takes its duration). 0 for no phases.
TimeUs PhasesNominalUs(const std::vector<Phase>& phases, const class Cluster& cluster);

struct Job {
  std::string name;
  TimeUs arrival_us = 0;
  UserId user;
  int priority = 0;
  double weight = 1.0;
  std::optional<TimeUs> deadline_us;  // completion-time goal, relative to arrival
  // The job's estimated peak memory in GB, given by its submitter (Ursa's
  // M(j), estimated from input size); nullopt when not given.
  std::optional<double> memory_estimate_gb;
  std::vector<Stage> stages;
  std::vector<uint32_t> topo_order;   // stage indices, parents before children
  uint64_t num_tasks = 0;

  // CpuSeconds: total cpu work of the job in core-seconds: duration x cpu
  // demand summed over tasks; a stage given only by phases counts the work of
  // its cpu phases.
  double CpuSeconds() const;
};

}  // namespace weft
