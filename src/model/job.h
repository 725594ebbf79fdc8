// File: model/job.h
//
// The job model: a job is a DAG of stages; a stage is a set of parallel tasks
// that share one profile (duration, demand, usage, phases, command) with
// optional per-task overrides (durations, locality). Homogeneous stages store
// their profile once, never one object per task, so traces with tens of
// millions of tasks fit in memory.
//
// Edges are barrier (every task of the child waits for every task of the
// parent) or pipelined (task i of the child waits for task i of the parent).
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

enum class EdgeKind : uint8_t { kBarrier, kPipelined };

struct Edge {
  uint32_t stage = 0;  // index of the other stage in the job
  EdgeKind kind = EdgeKind::kBarrier;
};

// Phase: one monotask of a task, using a single resource. `work` is
// core-seconds for cpu and MB for net and disk.
struct Phase {
  Resource resource = kCpu;
  double work = 0;
};

struct Stage {
  std::string name;
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
  std::vector<Phase> phases;         // empty: the task is one indivisible unit
  std::vector<std::vector<MachineId>> locality;  // per task, may be shorter than num_tasks
  std::string command;               // empty: built-in busy task
  std::vector<Edge> parents;
  std::vector<Edge> children;

  // TaskDuration: the nominal running time of task `i` on an idle machine.
  TimeUs TaskDuration(uint32_t i) const {
    return durations_us.empty() ? duration_us : durations_us[i];
  }
  // Preferences: the machines task `i` prefers; empty when it has none.
  std::span<const MachineId> Preferences(uint32_t i) const {
    if (i < locality.size()) return locality[i];
    return {};
  }
  bool HasPipelinedParent() const;
};

// PhasesNominalUs: the time of `phases` run one after another, each alone
// on the machine of `cluster` with the most of its resource (cpu phases on
// one core). 0 for no phases.
TimeUs PhasesNominalUs(const std::vector<Phase>& phases, const class Cluster& cluster);

struct Job {
  std::string name;
  TimeUs arrival_us = 0;
  UserId user;
  int priority = 0;
  double weight = 1.0;
  std::optional<TimeUs> deadline_us;  // completion-time goal, relative to arrival
  std::vector<Stage> stages;
  std::vector<uint32_t> topo_order;   // stage indices, parents before children
  uint64_t num_tasks = 0;

  // CpuSeconds: total cpu work of the job in core-seconds: duration x cpu
  // demand summed over tasks; a stage given only by phases counts the work of
  // its cpu phases.
  double CpuSeconds() const;
};

}  // namespace weft
