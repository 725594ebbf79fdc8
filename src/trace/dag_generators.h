// File: trace/dag_generators.h
//
// Single-job workloads for optimality studies (DAGPS 001_a7e14c78d79bdb00.txt
// sections 2.4, 6 and appendices A-B):
//
//   - TinyDagWorkload(seed): a random tiny DAG (2-5 stages of 1-2 tasks, at
//     most kTinyDagMaxTasks tasks, integer durations 1-4 s, cpu and memory
//     demands, barrier and pipelined edges) on one or two machines, small
//     enough for the exact solver (metrics/exact_solver.h).
//   - The adversarial DAGs of the appendix, reconstructed from the proofs'
//     text (the figures are images our copy of the paper lacks):
//     * Fig. 17 (Lemma 1, dependency-blind schedulers are Omega(d) x OPT):
//       one machine with capacity 1 of each of d resources; d groups of k
//       tasks of duration t, the tasks of group i each needing all of
//       resource i; one "red" task per group (all but the last) is the parent
//       of every task of the next group. Each group lists its red task last,
//       the adversary's choice against a scheduler that does not look at the
//       DAG: it takes k*d*t, OPT (k+d-1)*t.
//     * Fig. 18 (Lemma 2, critical-path scheduling is Omega(n) x OPT): 2n
//       tasks on one machine of n cores. Wide tasks W1 -> W2 -> ... -> Wn
//       (delta seconds, all n cores) form a chain; long tasks Li (1 core,
//       t + 2(n-i) delta) have Li+1 after Wi. Each long task has a longer
//       remaining critical path than the wide task ready with it, so CP runs
//       L1 W1 L2 W2 ... one at a time (about n t); OPT runs the chain first,
//       then all long tasks together (t + (3n-2) delta).
//     * Fig. 19 (Lemma 2, Tetris is (2d-2) x OPT), for d = 4 (weft's cpu,
//       mem, disk, net, capacity 1 each): 2d-2 = 6 long tasks (t) that fit
//       together, each using 0.45 of one resource and 0.15 of another, and
//       short wide tasks W1 -> ... -> W6 (1 s) in a chain with Wi the parent
//       of Li; Wi+1 needs 0.56 of Li's main resource, so it cannot run beside
//       Li, and Li's alignment (0.45 + 0.15 = 0.6) beats Wi+1's (0.56).
//       Tetris runs L1, W2, L2, W3, ... (6t + 6); OPT runs the chain, then
//       all long tasks together (t + 6).
//     Stages are listed so that tasks that become ready together are
//     released in the order the analysed scheduler prefers (the red task
//     last; Li before Wi+1).
// Each returns a validated Workload (built as FORMATS.md JSON and parsed).
// Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "model/workload.h"

namespace weft {

inline constexpr uint32_t kTinyDagMaxTasks = 7;

std::string TinyDagJson(uint64_t seed);
absl::StatusOr<Workload> TinyDagWorkload(uint64_t seed);

// Fig17Workload: d in [2, 4] resources, k >= 2 tasks per group, t seconds.
absl::StatusOr<Workload> Fig17Workload(uint32_t d, uint32_t k, double t);
// Fig18Workload: n >= 2 pairs, long tasks of about t, wide tasks of delta.
absl::StatusOr<Workload> Fig18Workload(uint32_t n, double t, double delta);
// Fig19Workload: the d = 4 instance with long tasks of t seconds.
absl::StatusOr<Workload> Fig19Workload(double t);

}  // namespace weft
