// File: policy/dagps/troublesome.h
//
// Choosing troublesome tasks and dividing a DAG around them
// (001_a7e14c78d79bdb00.txt, section 4.1, Fig. 6 CandidateTroublesomeTasks).
//   - LongScore(v) = v.duration / the longest duration in the DAG.
//   - FragScore(v), for v in stage s, = TWork(s) / ExecutionTime(s): the
//     stage's total work normalized by the capacity (TWork, Fig. 9 eq. 1b) over
//     the time a greedy packer takes to run the stage alone on the space.
//     Hard-to-pack stages score low.
//   - For thresholds l, f in {delta, 2 delta, ..., 1}: T = {v : LongScore(v) >=
//     l or FragScore(v) <= f}, then its closure (T plus every task on a path
//     between two tasks of T), P = ancestors of T not in T, C = descendants of T
//     not in T, O = the rest. Each distinct T is kept once.
// Reasoning over stages (section 4.4): all tasks of a stage share parents,
// children and demand, so T, O, P and C are unions of whole stages; a stage is
// troublesome when its longest task's LongScore >= l (or its FragScore <= f).
// Deliberate choice: with per-task durations, a stage counts as long when any
// of its tasks is; the paper's sets could split such a stage.
// f = 1 always makes T the whole DAG (FragScore <= 1), so plain greedy
// placement of the whole DAG is always among the candidates.
// Plain functions; thread-compatible.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/dagps/plan_input.h"

namespace weft::policy::dagps {

// Which subset a stage belongs to.
enum Subset : uint8_t { kT = 0, kO = 1, kP = 2, kC = 3 };

// LongScores: per stage, its longest task's duration over the DAG's longest.
std::vector<double> LongScores(const PlanInput& input);

// StageTWork: max over resources r of sum over the stage's tasks of
// duration x demand[r] / (sum of the machines' capacity[r]), in microseconds.
double StageTWork(const PlanInput& input, uint32_t stage);

// FragScores: per stage, StageTWork / the makespan of greedily placing the
// stage alone (forwards) on an empty space; 1 for an empty stage.
std::vector<double> FragScores(const PlanInput& input);

// Reachability: per stage, the bitsets of its ancestors and descendants.
class Reachability {
 public:
  explicit Reachability(const PlanInput& input);
  bool IsAncestor(uint32_t a, uint32_t of) const { return Bit(anc_, of, a); }
  bool IsDescendant(uint32_t d, uint32_t of) const { return Bit(desc_, of, d); }
  // Bridge: every other stage is an ancestor or a descendant of `s`.
  bool Bridge(uint32_t s) const;
  size_t words() const { return words_; }
  const uint64_t* ancestors(uint32_t s) const { return &anc_[s * words_]; }
  const uint64_t* descendants(uint32_t s) const { return &desc_[s * words_]; }

 private:
  bool Bit(const std::vector<uint64_t>& v, uint32_t row, uint32_t col) const {
    return (v[row * words_ + col / 64] >> (col % 64)) & 1;
  }
  size_t n_;
  size_t words_;
  std::vector<uint64_t> anc_;
  std::vector<uint64_t> desc_;
};

// Divide returns, per stage, its subset given the troublesome stages
// (troublesome[s] != 0): T is closed as described above.
std::vector<uint8_t> Divide(const Reachability& reach, const std::vector<uint8_t>& troublesome);

// CandidateDivisions: one division per distinct closed T over the threshold
// grid with step `delta` (0 < delta <= 1), in grid order (l outer, f inner,
// both increasing). `max_candidates` > 0 keeps only the first that many.
std::vector<std::vector<uint8_t>> CandidateDivisions(const PlanInput& input, const Reachability& reach,
                                                     double delta, uint32_t max_candidates = 0);

}  // namespace weft::policy::dagps
