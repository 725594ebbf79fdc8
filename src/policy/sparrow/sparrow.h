// File: policy/sparrow/sparrow.h
//
// Sparrow (Ousterhout et al., SOSP 2013; ../shared/papers/003): decentralized
// scheduling by sampling, as real message passing between independent
// scheduler replicas and per-machine node agents. Four variants (Fig. 3):
//   - sparrow-random:   each task to the queue of a uniformly random node;
//   - sparrow-per-task: per-task sampling, power of d choices (§3.2): probe d
//                       nodes per task, enqueue it on the shortest queue;
//   - sparrow-batch:    batch sampling (§3.3): probe d·m nodes for m tasks,
//                       enqueue them on the least loaded;
//   - sparrow:          batch sampling with late binding (virtual
//                       reservations, §3.5): probed nodes queue a
//                       reservation and, when it reaches the front, ask the
//                       scheduler for a task; the first m askers get tasks,
//                       the rest a no-op; optional proactive cancellation.
// Shared by all: node-side queues fifo / priority / fair (§4.2), constraints
// (§4.1: tasks with locality lists are sampled per task among their
// candidates, with probe information shared across the job's tasks), each
// DAG stage scheduled as a batch when it becomes ready (Sparrow's frontend),
// scheduler failover (§4.3, with the engine's scheduler failure injection:
// nodes drop a dead replica's reservations and queued tasks; the frontend's
// resubmission re-offers what had not launched to the next replica).
//
// Deliberate departures and choices (docs/reproductions/sparrow.md):
//   - slots: a node runs at most `slots` tasks at once (default: its cores)
//     AND only while the next task's demand fits what is not allocated; the
//     queue is strict (a task that does not fit yet blocks the queue, as a
//     Sparrow node monitor blocks on its slots). A task is only sampled onto
//     nodes whose capacity can hold its demand (a job-level constraint).
//   - "queue length" in probe replies = queued entries + running tasks +
//     outstanding task requests.
//   - batch placement is greedy least-loaded over the replies, counting the
//     tasks it has already put on a node (so with d·m >= m distinct replies
//     the m least loaded each get one task unless doubling up is no worse).
//   - d·m probes are distinct nodes when the cluster has enough eligible ones;
//     fractional d: a batch sends ceil(d·m) probes; per task, floor(d) plus
//     one more with probability frac(d).
//   - locality lists are treated as hard candidate sets (if none of a task's
//     candidates is up, it falls back to all nodes).
//   - machine failures (not in the paper): schedulers re-place tasks queued or
//     handed to a node that died and still ready, and re-probe when a job's
//     live reservations no longer cover its unlaunched tasks.
#pragma once

#include <cstdint>

#include "policy/policy.h"

namespace weft::policy::sparrow {

enum class Variant : uint8_t { kRandom, kPerTask, kBatch, kLateBinding };
enum class QueueKind : uint8_t { kFifo, kPriority, kFair };

struct Config {
  Variant variant = Variant::kLateBinding;
  double probe_ratio = 2;   // d
  uint32_t schedulers = 10;
  uint32_t slots = 0;       // tasks a node runs at once; 0: its cores (at least 1)
  bool cancellation = false;
  QueueKind queue = QueueKind::kFifo;
};

// Message types. `task` names (job, stage, index); for reservations the index
// is the task the probe was sampled for (only meaningful for constrained jobs).
enum MessageType : uint32_t {
  kProbe = 1,   // sched -> node (per-task, batch): report your load. a: probe batch id
  kProbeReply,  // node -> sched: a: probe batch id, b: load (queued + running + requesting)
  kEnqueue,     // sched -> node (random, per-task, batch): queue this task, run it in turn
  kReserve,     // sched -> node (late binding): queue a reservation for task.job/stage
  kGetTask,     // node -> sched: a reservation reached the front; task: the reservation
  kTask,        // sched -> node: run `task` (same job and stage as the reservation)
  kNoOp,        // sched -> node: nothing left for the reservation `task`
  kCancel,      // sched -> node: drop queued reservations for task.job/stage
};

extern const PolicyInfo kSparrowRandomInfo;
extern const PolicyInfo kSparrowPerTaskInfo;
extern const PolicyInfo kSparrowBatchInfo;
extern const PolicyInfo kSparrowInfo;

}  // namespace weft::policy::sparrow
