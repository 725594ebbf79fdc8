// File: sim/engine.h
//
// Engine: the deterministic discrete-event simulator. It replays a workload on
// its modelled cluster under one policy: it delivers job arrivals, messages,
// timers and task events to the policy's roles, carries out their decisions
// (checked, never trusted), runs tasks under an execution model, injects
// failures, and reports every attempt and job to RunObservers as it goes.
//
// Execution models (ARCHITECTURE.md, "Execution models"):
//   - fixed: a task runs for its duration once started; a task with phases
//     runs each phase alone (cpu: work on one core; net/disk: work at the
//     machine's full bandwidth);
//   - contention: on each machine every resource (cpu, disk, net) is shared
//     among the running tasks in proportion to what they want; a task whose
//     resources are oversubscribed progresses proportionally slower, and
//     memory use beyond capacity kills the newest tasks (outcome failed, as an
//     out-of-memory kill would) until the rest fit.
//
// Determinism: all time is integer microseconds, events are ordered by
// (time, sequence), and every random draw comes from streams forked from the
// run's seed, so the same inputs give byte-identical outputs.
// Not thread-safe; one Engine per run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "core/random.h"
#include "model/job_source.h"
#include "model/machine_profile.h"
#include "model/workload.h"
#include "policy/policy.h"
#include "sim/event_queue.h"
#include "metrics/records.h"

namespace weft::sim {

enum class ExecutionModel : uint8_t { kFixed, kContention };
const char* ExecutionModelName(ExecutionModel m);

struct MachineFailure {
  MachineId machine;
  TimeUs at_us = 0;
  std::optional<TimeUs> recover_us;
};

// SchedulerFailure: scheduler replica `replica` dies at `at_us` (Sparrow
// §4.3): its role is destroyed and mail to it is dropped; the active jobs
// homed at it move to the next live replica (replica+1, +2, ... mod n), which
// hears OnJobArrived again and OnTasksReady for every task of the job still
// ready (the frontends' resubmission; after the latency); node agents and the
// surviving replicas hear OnSchedulerDown(replica). At least one replica must
// survive. Replicas do not come back.
struct SchedulerFailure {
  uint32_t replica = 0;
  TimeUs at_us = 0;
};

struct SimOptions {
  uint64_t seed = 1;
  ExecutionModel model = ExecutionModel::kFixed;
  TimeUs latency_us = 0;           // one-way delay of every message between roles
  uint32_t max_attempts = 4;       // failed attempts before the task's job fails
  double task_failure_prob = 0;    // chance that an attempt fails partway
  std::vector<MachineFailure> failures;
  std::vector<SchedulerFailure> scheduler_failures;
  policy::KnowledgeOptions knowledge;
  // The run stops with an error after this many events in a row in which no
  // task started or ended and no job arrived (a policy that makes no progress).
  uint64_t stall_limit = 20'000'000;
  // Costs beyond max-min sharing (docs/model.md, "The machine profile"); all
  // 0 by default.
  MachineProfile profile;
};

struct RunStats {
  uint64_t events = 0;
  uint64_t messages = 0;
  uint64_t messages_dropped = 0;  // to a role that no longer exists
  uint64_t refused_decisions = 0;
  uint64_t attempts = 0;
  uint64_t tasks_done = 0;
  uint64_t jobs_succeeded = 0;
  uint64_t jobs_failed = 0;
  uint64_t tasks_unfinished = 0;  // tasks of jobs that never finished
  TimeUs end_us = 0;
};

// ValidateSimOptions checks the inputs a run would otherwise index with: the
// policy has a scheduler, machine failures name machines of the cluster,
// scheduler failures name replicas of the policy and leave one alive.
// InvalidArgument otherwise. Engine::Run calls it; callers that write output
// call it first so that bad input writes nothing.
absl::Status ValidateSimOptions(const Workload& workload, const policy::Policy& policy, const SimOptions& options);

class EngineCore;  // sim/engine_impl.h

class Engine {
 public:
  Engine(const Workload& workload, policy::Policy& policy, SimOptions options);
  // Jobs taken from `source` as they arrive (model/job_source.h); the source
  // outlives the engine.
  Engine(JobSource& source, policy::Policy& policy, SimOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Observers must outlive Run(); they are called in simulated-time order.
  void AddObserver(RunObserver* observer);

  // SetProgress: `fn` is called every `every_events` events (progress bars).
  using ProgressFn = std::function<void(TimeUs now, uint64_t tasks_done, uint64_t total_tasks)>;
  void SetProgress(ProgressFn fn, uint64_t every_events);

  // Run simulates to the end. Fails (Internal) if the policy stalls, or if
  // jobs remain unfinished when nothing is left to happen.
  absl::Status Run();

  const RunStats& stats() const;

 private:
  std::unique_ptr<EngineCore> impl_;
};

}  // namespace weft::sim
