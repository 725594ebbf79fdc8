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

}  // namespace weft
