// File: runtime/scheduler/attempt_launches.h
//
// AttemptLaunches: what a node is told to run. An engine launch becomes a
// v1::Launch: its label, the stage's command with the job, stage and task
// substituted (model/names.h: names a command substitutes are shell-safe),
// or the built-in task's duration, its container, and what the engine
// reserved for it (the node admits and limits by it: docs/runtime.md,
// "Enforcement"). A task with profiled phases keeps its reservation here
// while it runs, so that the reservation's moves reach its node. A phase
// start becomes a v1::PhaseStart with the phase's work scaled like the
// simulator's; a built-in phase that moves network bytes (a net phase, a
// profiled phase's net rate) gets a transfer to read them from
// (data_transfers.h): from the closest other node holding the task's input,
// else from its own node's data port.
//
// Everything goes through the NodeOutbox. Not thread-safe: the core calls
// it under its lock (the engine's executor and observer calls).
#pragma once

#include <cstdint>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "metrics/records.h"
#include "model/workload.h"
#include "runtime/replica_ids.h"
#include "runtime/scheduler/data_transfers.h"
#include "runtime/scheduler/node_outbox.h"
#include "sim/live_engine.h"

namespace weft::runtime {

class AttemptLaunches {
 public:
  // `live`: the workload the engine runs (JobId = index).
  AttemptLaunches(NodeOutbox& outbox, DataTransfers& transfers, const Workload& live, const ReplicaIds& replica)
      : outbox_(outbox), transfers_(transfers), live_(live), replica_(replica) {}

  void Launch(const sim::AttemptLaunch& launch);
  void StartPhase(uint64_t id, MachineId machine, const TaskRef& task, uint32_t phase);
  // CopyBytes: attempt `id` on `to` copies `mb` from `from`'s data port (a
  // DataCopy to `to`, its ticket to `from`). False when `from` has no data
  // port up (the copy cannot be made: the engine counts it done).
  bool CopyBytes(uint64_t id, MachineId to, MachineId from, double mb);
  // The engine's reservation of an attempt: set when it starts, moved while
  // it runs, dropped when it ends.
  void OnStart(const AttemptStart& start);
  void OnChange(const ReservationChange& change);
  void OnEnd(const TaskRef& task, uint32_t attempt);

 private:
  // PullNetBytes: the transfer phase start `s` of task `task` on `machine`
  // reads its `bytes` from, if any node can serve it.
  void PullNetBytes(MachineId machine, const TaskRef& task, uint64_t bytes, v1::PhaseStart& s);

  NodeOutbox& outbox_;
  DataTransfers& transfers_;
  const Workload& live_;
  const ReplicaIds& replica_;
  // Set by OnStart and kept until the Launch (or, with profiled phases,
  // until the attempt ends, with its attempt id so its moves reach its node).
  struct Reservation {
    Resources reserve;
    uint64_t id = 0;  // 0 until Launch
  };
  using AttemptKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;  // job, stage, task, attempt
  static AttemptKey KeyOf(const TaskRef& t, uint32_t attempt) { return {t.job.value(), t.stage, t.index, attempt}; }
  absl::flat_hash_map<AttemptKey, Reservation> reservations_;
};

}  // namespace weft::runtime
