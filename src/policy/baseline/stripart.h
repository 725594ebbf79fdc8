// File: policy/baseline/stripart.h
//
// stripart: StripPart (Augustine, Banerjee and Irani, "Strip packing with
// precedence constraints and strip packing with release times", SPAA'06), the
// O(log n)-approximation DAGPS compares against (001_a7e14c78d79bdb00.txt,
// sections 8.1 and 8.3: "partition tasks into levels such that all
// dependencies go across levels", then pack each level; "it prevents
// overlapping independent tasks that happen to be in different levels").
//
// Levels: each stage's interval [s, f) in the as-soon-as-possible schedule
// with unlimited machines (s = latest parent end, f = s + its longest task).
// The span [0, critical path) is split at its midpoint p: stages whose
// interval contains p form one level (they are mutually independent: a
// parent ends no later than its child starts); stages wholly before p are
// split recursively in [0, p), those wholly after in (p, end); levels are
// numbered in that in-order (before, at p, after), so every dependency goes
// from a lower level to a higher one. The recursion depth is logarithmic in
// the span, the source of the O(log n) factor.
// Packing: the levels of a job run one after another (policy/common/
// level_gate.h: a level opens when the previous one has finished); inside a
// level, tasks are packed greedily, longest stage first (first fit
// decreasing height, the shelf packers' order), first fit over machines,
// backfilling what the longest cannot use (param pack=fifo: stage order).
// Across jobs: FIFO (priority, arrival), each job through its own levels.
//
// Deliberate departures: stage granularity (a stage's tasks share an interval,
// its longest task's); pipelined edges are treated as barriers; the packer
// is multi-resource first fit rather than the 1-D Reverse-Fit the paper
// recommends (which does not support vectors, as DAGPS notes). Clairvoyant:
// durations are the JobView's estimates (true durations, estimate_noise).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/time.h"
#include "policy/job_view.h"
#include "policy/policy.h"

namespace weft::policy::baseline {

extern const PolicyInfo kStripPartInfo;

// StripPartLevels returns each stage's level given per-stage durations.
std::vector<uint32_t> StripPartLevels(const JobView& job, std::span<const TimeUs> durations);

}  // namespace weft::policy::baseline
