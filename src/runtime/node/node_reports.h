// File: runtime/node/node_reports.h
//
// What a node tells its scheduler about a process that ended: a task's end
// (TaskEnd) or a phase's (PhaseEnd), with what it used over its run in the
// model's units (docs/runtime.md, "Usage"). Pure functions of the runner's
// TaskExit; the daemon sends what they build on the link that launched it.
//
// Threading: none of their own; plain functions.
#pragma once

#include <cstdint>

#include "runtime/node/task_runner.h"
#include "weft/v1/weft.pb.h"

namespace weft::runtime {

// SetUsage: what a process used over its run, in the model's units (cores,
// resident GB, storage MB/s, network MB/s): averages over the run from the
// totals, peaks from the heartbeat samples (never below the average).
void SetUsage(const TaskExit& exit, v1::ResourceVector& average, v1::ResourceVector& peak);

// AddEnd appends the end of attempt `attempt` (a task without phases, or a
// launch the node refused) to `ends`.
void AddEnd(v1::TaskEnds& ends, uint64_t attempt, const TaskExit& exit);

// AddPhaseEnd appends the end of phase `phase` of attempt `attempt` to `ends`.
void AddPhaseEnd(v1::PhaseEnds& ends, uint64_t attempt, uint32_t phase, const TaskExit& exit);

}  // namespace weft::runtime
