// File: cli/compare_table.h
//
// The table `weft compare` prints: one row per policy with what it knows in
// advance, what it over-commits, its job completion times, and the cpu its
// tasks held next to the cpu they used (docs/policies.md, "What a task holds
// and uses"), then notes that say what each column means. Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "sim/simulation.h"

namespace weft::cli {

// CompareTable renders `results` in their order. With a `baseline` (one of
// `results`), two more columns give each mean and p95 JCT divided by the
// baseline's.
std::string CompareTable(const std::vector<sim::SimulationResult>& results, const sim::SimulationResult* baseline);

}  // namespace weft::cli
