// File: tests/policy/seed_workloads.h
//
// The random workloads the policy property tests draw per seed
// (trace/random_workload.h): the conformance suite and the executor failure
// tests use the same ones, so a seed named in one means the same workload in
// the other. Every fourth seed draws a larger workload (more jobs, wider
// stages), so that queues build up on the small clusters.
#pragma once

#include <cstdint>
#include <utility>

#include "core/status.h"
#include "gtest/gtest.h"
#include "trace/random_workload.h"

namespace weft::testing {

inline RandomWorkloadOptions SeedWorkloadOptions(uint64_t seed) {
  RandomWorkloadOptions o;
  if (seed % 4 == 3) {
    o.max_jobs = 8;
    o.max_stages = 6;
    o.max_tasks = 16;
  }
  return o;
}

// SeedWorkload: the seed's workload; a generator error fails the test and
// gives an empty workload.
inline Workload SeedWorkload(uint64_t seed) {
  auto w = RandomWorkload(seed, SeedWorkloadOptions(seed));
  EXPECT_TRUE(w.ok()) << "generator bug at seed " << seed << ": " << StatusMessage(w.status());
  return w.ok() ? std::move(*w) : Workload{};
}

}  // namespace weft::testing
