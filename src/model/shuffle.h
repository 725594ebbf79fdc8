// File: model/shuffle.h
//
// The rules of shuffle edges (Hadoop's reduce slow start) that the engine,
// the schedule checker and the reader share, so they cannot disagree.
#pragma once

#include <cstdint>

#include "model/job.h"

namespace weft {

// LaunchThreshold: how many of the parent stage's `parent_tasks` must be
// done before a child task behind edge `e` may launch: all of them but for a
// shuffle edge, whose `slowstart` fraction is rounded up to whole tasks (at
// least one).
uint32_t LaunchThreshold(const Edge& e, uint32_t parent_tasks);

// HasShuffleParent: some parent edge of `stage` is a shuffle edge.
bool HasShuffleParent(const Stage& stage);

// ShufflePhaseFirst: the stage is behind a shuffle edge and its first
// profiled phase is named "shuffle": each task runs that phase from its
// launch alongside the edge's shuffle, and the phase ends at the later of its
// own duration and the edge's shuffle end (docs/workload-format.md). Its time
// may hide entirely in the wait for the parents, so lower bounds leave it
// out of the path behind them.
bool ShufflePhaseFirst(const Stage& stage);

// PhaseReservation: what a task of `stage` (with profiled phases) reserves
// while its phase `phase` runs: the per-resource maximum of the demands of
// that phase and the phases after it, so a task's reservation only shrinks
// and it never needs more room than it holds (a policy cannot deadlock it by
// filling the room a later phase needs); but a first "shuffle" phase
// (ShufflePhaseFirst) reserves only its own demand, and the task grows to
// the rest's maximum when it ends (RAS's reducer switching from its shuffle
// to its reduce profile; the engine waits for the room).
Resources PhaseReservation(const Stage& stage, uint32_t phase);

}  // namespace weft
