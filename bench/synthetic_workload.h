// File: bench/synthetic_workload.h
//
// BuildSyntheticWorkload: a large in-memory workload for benchmarks, built
// directly (a 10M-task JSON file would take longer to parse than to
// simulate). Jobs are map -> reduce -> output chains with homogeneous stages
// (one profile per stage, as real traces mostly are), Poisson arrivals sized
// so the cluster runs at about `load`, on identical 16-core, 64 GB machines
// in racks of 40.
#pragma once

#include <cstdint>

#include "model/workload.h"

namespace weft::bench {

struct SyntheticSpec {
  uint32_t machines = 10'000;
  uint64_t tasks = 1'000'000;
  uint32_t tasks_per_job = 500;  // map tasks; reduce gets a quarter, output one
  double mean_task_seconds = 5;
  double load = 0.8;
  uint64_t seed = 1;
};

Workload BuildSyntheticWorkload(const SyntheticSpec& spec);

}  // namespace weft::bench
