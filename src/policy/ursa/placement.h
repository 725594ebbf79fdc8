// File: policy/ursa/placement.h
//
// Ursa's task placement, Algorithm 1 (002_872a20c16a9dbee0.txt section
// 4.2.2), as pure functions over a snapshot of the workers, so that it can be
// checked by hand (tests/policy/ursa_test.cc) and the scheduler only feeds it.
//
// Per worker w and resource r in {cpu, disk, net}: APT_r(w) is the work of
// the type-r monotasks assigned to w and not done, over w's measured type-r
// processing rate (APT_cpu = 0 while w has an idle core);
// D_r(w) = max(0, (EPT - APT_r(w)) / EPT). D_mem(w) is w's free memory over
// its memory capacity. A task t's Inc_r(t, w) is its estimated r work over
// w's rate, over EPT (the increase of APT_r(w) in units of EPT); Inc_mem is
// its memory estimate over w's memory capacity (the paper says "the
// estimated memory usage"; dividing by the capacity puts it in D_mem's unit).
// F(t, w) = sum_r D_r(w) * min(Inc_r(t, w), D_r(w)) (Eq. 1, with Inc capped
// at D as the paper says), and w is not a candidate when some r has
// D_r(w) = 0 < Inc_r(t, w), or when what launching t reserves does not fit
// w's free room. StageScore places each task of a stage on its best worker,
// updating the snapshot as it goes, and scores the plan as the mean F plus
// `bonus` when every task of the stage found a worker (stage awareness).
// Estimated total usage (the monotasks' work), not peak demand, drives it.
// Plain functions and data; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/resources.h"
#include "policy/common/monotasks.h"

namespace weft::policy::ursa {

// One worker as Algorithm 1 sees it during a batch.
struct WorkerSnapshot {
  bool up = true;
  MonotaskWork apt{};   // seconds of assigned work per resource (kMem unused)
  MonotaskWork rate{};  // work per second per resource (kMem unused)
  uint32_t idle_cores = 0;  // APT_cpu counts as 0 while this is > 0
  double mem_capacity_gb = 0;
  Resources capacity;
  Resources free;  // capacity minus reservations, for the fit check
};

// One task as Algorithm 1 sees it.
struct TaskLoad {
  MonotaskWork work{};  // estimated work per resource (kMem unused)
  // The work of its first monotask: what enters the worker's queues when it
  // is launched. APT counts the monotasks in a worker's queues, and a later
  // monotask enters its queue only when the one before it has ended (its
  // input exists then), so a task adds only this to APT at placement.
  MonotaskWork first{};
  double mem_gb = 0;    // estimated memory (Inc_mem)
  Resources reserve;    // what launching it reserves on its machine
  // whole: the task cannot run as monotasks (no phases) and reserves its
  // demand for its whole life; its work then progresses alongside the
  // worker's other tasks instead of queueing, so APT does not apply: its
  // Inc_r is its demand's fraction of w's capacity and D_r(w) the fraction
  // of r not reserved, as D_mem is for memory.
  bool whole = false;

  friend bool operator==(const TaskLoad&, const TaskLoad&) = default;
};

// Slack returns D_r(w) for r in cpu, disk, net (from APT and EPT; from the
// unreserved fraction for a whole task) and D_mem.
MonotaskWork Slack(const WorkerSnapshot& w, double ept_s, bool whole = false);

// Score returns F(t, w), or nullopt when w is not a candidate for t.
std::optional<double> Score(const TaskLoad& t, const WorkerSnapshot& w, double ept_s);

// Assign updates `w` as if `t` were placed on it.
void Assign(const TaskLoad& t, WorkerSnapshot& w);

struct StagePlan {
  double score = 0;  // mean F over the plan, plus the bonus when complete
  bool complete = false;
  // (index into the tasks given, worker index), in the order decided.
  std::vector<std::pair<uint32_t, uint32_t>> plan;
};

// ScoresAlike: F(a, w) == F(b, w) for every worker w (what Score reads of a
// task is the same in both).
bool ScoresAlike(const TaskLoad& a, const TaskLoad& b);
// NoRoomEither: on any snapshot where no worker is a candidate for `a`, none
// is for `b` either (b needs at least what a needs).
bool NoRoomEither(const TaskLoad& b, const TaskLoad& a);

// StageScore: Algorithm 1's StageScore(S, D) over a copy of `workers`
// (ties: the lower worker index).
StagePlan StageScore(std::span<const TaskLoad> tasks, std::vector<WorkerSnapshot> workers, double ept_s,
                     double bonus);

}  // namespace weft::policy::ursa
