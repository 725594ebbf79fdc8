// File: sim/execution.h (internal to sim/)
//
// Execution: how an attempt's work gets done once the attempt has reached its
// machine. The engine owns the life of jobs, tasks and attempts (readiness,
// launches, retries, the policy's roles); an Execution owns the progress of
// the work and what it holds and uses on the machine. Three implementations,
// chosen once per run:
//   - FixedExecution (modeled_execution.h): every segment runs at full speed
//     for its nominal length;
//   - ContentionExecution (modeled_execution.h): running segments share each
//     machine's cpu, disk and network and slow down when oversubscribed;
//   - LiveExecution (live_engine.cc): attempts run as real processes on the
//     runtime's nodes and end when the nodes say so; shuffle copies move
//     real bytes between the nodes (MovesBytes).
//
// Accounting rules every implementation follows (docs/policies.md, "What a
// task holds and uses"):
//   - an attempt without phases holds its demand from its start to its end;
//   - an attempt with phases holds its memory demand for the whole attempt and,
//     while a phase runs, the share of the phase's resource that phase is
//     given (a cpu phase up to one core, a disk or net phase up to the
//     machine's bandwidth), so that what phases hold never sums above a
//     machine's capacity;
//   - what an attempt uses follows its progress rate: a slowed attempt uses
//     proportionally less per second, and the machine never delivers more
//     than its capacity (in the fixed model, where time does not stretch, an
//     oversubscribed resource is shared out instead).
// Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <optional>

#include "core/ids.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/resources.h"
#include "policy/roles.h"
#include "sim/event_queue.h"

namespace weft::sim {

// ExecutionHost: what an Execution reports back to the engine.
class ExecutionHost {
 public:
  virtual ~ExecutionHost() = default;
  // BeginSegments: the attempt in `slot` is on its machine and its first
  // segment may run (the engine hands phase 0 to a node agent that controls
  // phases, or asks the execution to run it).
  virtual void BeginSegments(uint32_t slot) = 0;
  // SegmentDone: the attempt's current segment (its whole work, or its
  // current phase) has finished.
  virtual void SegmentDone(uint32_t slot) = 0;
  // AttemptDone: the execution ends the attempt (failure injected partway, an
  // out-of-memory kill, or an end the runtime reported).
  virtual void AttemptDone(uint32_t slot, Outcome outcome) = 0;
  // UsageChanged: what the attempt uses right now went from `before` to
  // `after` (the engine keeps machines' and containers' `used` current).
  virtual void UsageChanged(uint32_t slot, const Resources& before, const Resources& after) = 0;
  // PhaseEnded: phase `phase` of the attempt ran from `start_us` until now,
  // holding `held` of its resource on average; completed = false when the
  // attempt was stopped during the phase.
  virtual void PhaseEnded(uint32_t slot, uint32_t phase, TimeUs start_us, double held, bool completed) = 0;
  // ContainerSize: the size of container `c` (zero when there is none); the
  // runtime's launch carries it to the node, which enforces it.
  virtual Resources ContainerSize(ContainerId c) const = 0;
  // BytesMoved: an execution that moves bytes itself (Execution::MovesBytes)
  // finished the attempt's last live move: its input read, or its shuffle,
  // may end.
  virtual void BytesMoved(uint32_t slot) = 0;
};

// What an attempt is, as an execution needs to know it: the engine's own
// record of the attempt (sim/attempt_table.h), passed by reference, so it is
// current when read and may change during any call back to the host (read
// what is needed after such a call before making it).
struct ExecutionAttempt {
  TaskRef task;
  uint32_t attempt_no = 0;
  MachineId machine;
  uint32_t generation = 0;
  uint16_t phase = 0;      // the current phase, for tasks with phases
  uint64_t launch_order = 0;  // machines' attempts are visited in launch order
  Resources demand;        // reserved at launch
  Resources usage;         // the stage's average real use (per-task override applied)
  ContainerId container;   // the container it runs in (invalid: none)
};

// AttemptAccount: what an attempt held and used over its life, handed to the
// engine when the attempt ends.
struct AttemptAccount {
  policy::TaskUsage usage;          // average and peak real use
  std::optional<Resources> held;    // average holding when it is not the demand (phased work)
  TimeUs start_us = -1;             // when the work really began, if the execution knows better
};

class Execution {
 public:
  virtual ~Execution() = default;
  // Begin: the attempt in `slot` reached its machine at `now`. The execution
  // calls host.BeginSegments when the engine may drive its segments (the
  // simulator's models), or runs the whole attempt itself (the runtime).
  virtual void Begin(uint32_t slot, const ExecutionAttempt& attempt) = 0;
  // RunSegment: run the attempt's current segment (phase attempt.phase, or
  // the whole task when it has no phases).
  virtual void RunSegment(uint32_t slot, const ExecutionAttempt& attempt) = 0;
  // OnSegmentEvent: a kSegmentEnd event this execution queued came due.
  virtual void OnSegmentEvent(const Event& e) = 0;
  // End: the attempt in `slot` ends now (whoever decided it): stop its work
  // if it still runs, release what it holds, and return its account. Called
  // exactly once per attempt that had Begin called, and for attempts that
  // never reached their machine (then the account is empty).
  virtual AttemptAccount End(uint32_t slot, const ExecutionAttempt& attempt) = 0;
  // ChargesRemoteReads: the engine charges the locality cost's remote reads
  // (sim/locality.cc) to attempts run here; not for real runs, whose tasks
  // read their input for real.
  virtual bool ChargesRemoteReads() const { return true; }
  // MovesBytes: the execution moves an attempt's bytes between machines
  // itself (the runtime: real bytes from node to node) instead of the
  // engine's modelled flows (sim/network_flows.h), which the simulator's
  // models use: a shuffling attempt's copies, and an attempt's input when it
  // runs off the machines holding it (with or without a locality cost: the
  // real read costs what it costs). Then the engine hands each move to
  // MoveBytes and asks LiveMoves before it ends a read or a shuffle.
  virtual bool MovesBytes() const { return false; }
  // MoveBytes: move `mb` (> 0) from machine `from` to the attempt's machine;
  // when the attempt's last live move ends, host.BytesMoved. A move that
  // fails ends the attempt (host.AttemptDone, failed). A move that cannot be
  // made is not live (LiveMoves does not count it).
  virtual void MoveBytes(uint32_t /*slot*/, const ExecutionAttempt& /*attempt*/, MachineId /*from*/, double /*mb*/) {}
  // LiveMoves: how many of the attempt's moves have not ended.
  virtual uint32_t LiveMoves(uint32_t /*slot*/) const { return 0; }
};

}  // namespace weft::sim
