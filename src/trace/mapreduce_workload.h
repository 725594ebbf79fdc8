// File: trace/mapreduce_workload.h
//
// A seeded generator of MapReduce jobs over HDFS-like input (issue #13,
// "Generators"; `weft gen mapreduce`, docs/workload-format.md "Generated
// MapReduce workloads"). Each job:
//   - reads an input whose size is drawn log-uniformly in [min_input_mb,
//     max_input_mb] (many small jobs, a few large ones, as in the delay
//     scheduling paper's Facebook trace);
//   - has a map stage of ceil(input / block_mb) tasks, one per block: task i
//     reads its block (`input_mbs`, the last one the remainder) and runs
//     map_s x (its block / block_mb) seconds; its `locality` list holds the
//     block's `replicas` machines, placed as HDFS does: the first on a random
//     machine, the others on distinct machines of one other random rack
//     (the same rack when the cluster has one);
//   - unless reduce_ratio is 0 (map-only jobs), a reduce stage of
//     ceil(maps x reduce_ratio) tasks of reduce_s seconds behind a shuffle
//     edge with slow start `slowstart`; a map's output is block_mb x
//     shuffle_ratio, split evenly among the reducers, so each reducer copies
//     shuffle_mb = block_mb x shuffle_ratio / reducers from every map.
// Jobs arrive as a Poisson process of mean gap mean_interarrival_s; job j
// belongs to user u(j mod users), or to its own user u<j> when users is 0
// (the default: policies that share fairly between users, as weft's `fair`
// and `delay` do, then share between jobs, as the delay scheduling paper's
// fair scheduler does). The cluster is
// `machines` identical machines in racks of `rack_size`; the locality cost is
// on (bandwidths) when rack_mbps and cross_rack_mbps are both > 0.
// Deterministic in `seed`; thread-safe (no shared state).
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/workload.h"
#include "nlohmann/json.hpp"

namespace weft {

struct MapReduceSpec {
  uint32_t machines = 100;
  uint32_t rack_size = 20;
  double cores = 8;
  double mem_gb = 16;
  double disk_mbps = 100;
  double net_mbps = 125;
  uint32_t jobs = 100;
  uint32_t users = 0;          // 0: one user per job
  double mean_interarrival_s = 5;
  double min_input_mb = 64;
  double max_input_mb = 12'800;
  double block_mb = 128;
  uint32_t replicas = 3;
  double map_s = 4;            // a map task's time for a whole block
  double reduce_ratio = 0.1;   // reducers per map (rounded up); 0: map-only jobs
  double reduce_s = 6;
  // Slow start of the shuffle edge. 1 (a barrier) by default: with early
  // reducers, policies that do not know shuffle edges can fill the cluster
  // with waiting reducers and starve the maps (Hadoop's slow-start deadlock).
  double slowstart = 1;
  double shuffle_ratio = 0.1;  // map output MB per input MB
  double rack_mbps = 0;        // locality cost (both > 0 to turn it on)
  double cross_rack_mbps = 0;
  uint64_t seed = 1;
};

// CheckMapReduceSpec: an error naming the first bad field (for the command
// line's exit 2), or ok.
absl::Status CheckMapReduceSpec(const MapReduceSpec& spec);

// MapReduceClusterJson: the cluster section of the spec's machine fields
// (machines, rack_size, cores, mem_gb, disk_mbps, net_mbps, the locality
// cost); also the cluster of a fixed job list (mapreduce_jobs.h).
nlohmann::ordered_json MapReduceClusterJson(const MapReduceSpec& spec);

// MapReduceWorkloadJson: the workload as FORMATS.md section 1 JSON. The spec
// must pass CheckMapReduceSpec.
nlohmann::ordered_json MapReduceWorkloadJson(const MapReduceSpec& spec);

// MapReduceWorkload: the same, parsed and validated.
absl::StatusOr<Workload> MapReduceWorkload(const MapReduceSpec& spec);

}  // namespace weft
