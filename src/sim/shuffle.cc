// The shuffle phase of a task behind shuffle edges (Hadoop's reduce slow
// start; docs/workload-format.md "after"): launched once the slow-start
// fraction of a parent's tasks is done, the task first copies each parent
// task's output (the edge's shuffle_mb) over its machine's network, one copy
// after another at the machine's full net bandwidth, as the parent tasks end;
// its shuffle ends once the last parent task has ended and the last copy is
// done, and only then does its own work begin (BeginSegments again). While
// it shuffles the attempt holds what it reserved and runs no segment.
// Deliberate simplification: copies of different tasks on one machine do not
// slow each other, in either execution model.
#include <algorithm>
#include <cmath>

#include "sim/engine_impl.h"

namespace weft::sim {

namespace {
// CopyUs: microseconds to copy `mb` at `mbps`.
double CopyUs(double mb, double mbps) { return mb > 0 ? mb / mbps * 1e6 : 0.0; }
}  // namespace

bool EngineCore::StartShuffle(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Job& job = w_.jobs[a.task.job.value()];
  const Stage& st = job.stages[a.task.stage];
  const policy::JobProgress& p = jobs_.progress(a.task.job);
  double available_mb = 0;  // output of the parent tasks done so far
  for (const Edge& e : st.parents) {
    if (e.kind == EdgeKind::kShuffle) available_mb += e.shuffle_mb * p.stages[e.stage].done;
  }
  const bool waiting = p.stages[a.task.stage].barrier_parents_left > 0;
  if (!waiting && available_mb <= 0) return false;  // as after a barrier: nothing to wait for
  a.MoveTo(AttemptState::kShuffling);
  const TimeUs now = queue_.now();
  a.copy_done_us = static_cast<double>(now) + CopyUs(available_mb, cluster_.capacity(a.machine).units(kNet));
  if (!waiting) {
    ScheduleShuffleEnd(slot);
  } else {
    jobs_.AddShuffling(a.task, slot, a.generation);
  }
  return true;
}

void EngineCore::ShuffleOutputReady(JobId job, const Edge& child) {
  if (child.shuffle_mb <= 0) return;
  const auto now = static_cast<double>(queue_.now());
  for (const auto& [slot, generation] : jobs_.Shuffling(job, child.stage)) {
    Attempt* a = attempts_.Find(slot, generation);
    if (a == nullptr || !AttemptLifecycle::Shuffling(a->state())) continue;  // ended meanwhile
    a->copy_done_us = std::max(a->copy_done_us, now) + CopyUs(child.shuffle_mb, cluster_.capacity(a->machine).units(kNet));
  }
}

void EngineCore::ShuffleParentsDone(JobId job, uint32_t stage) {
  for (const auto& [slot, generation] : jobs_.TakeShuffling(job, stage)) {
    const Attempt* a = attempts_.Find(slot, generation);
    if (a == nullptr || !AttemptLifecycle::Shuffling(a->state())) continue;  // ended meanwhile
    ScheduleShuffleEnd(slot);
  }
}

void EngineCore::ScheduleShuffleEnd(uint32_t slot) {
  const Attempt& a = attempts_[slot];
  // Always through the queue, even when due now: the shuffle's end must not
  // run the task's work from inside another task's end.
  const TimeUs end = std::max(queue_.now(), static_cast<TimeUs>(std::ceil(a.copy_done_us - 1e-6)));
  queue_.Push(Event{.time = end, .type = EventType::kShuffleEnd, .a = slot, .b = a.generation});
}

void EngineCore::EndShuffle(const Event& e) {
  Attempt* a = attempts_.Find(e.a, e.b);
  if (a == nullptr || !AttemptLifecycle::Shuffling(a->state())) return;  // the attempt ended meanwhile
  switch (a->state()) {
    case AttemptState::kShuffling:  // the work waited for the shuffle
      return BeginWork(e.a, *a, w_.jobs[a->task.job.value()].stages[a->task.stage], /*alongside_shuffle=*/false);
    // A "shuffle" phase ran alongside (sim/profiled_phases.cc): it carries on
    // outside the shuffle, or, if its work is done, it ends now.
    case AttemptState::kShufflingPhaseReady:
      return a->MoveTo(AttemptState::kPhaseReady);
    case AttemptState::kShufflingParked:
      return a->MoveTo(AttemptState::kParked);
    case AttemptState::kShufflingRunning:
      return a->MoveTo(AttemptState::kRunning);
    case AttemptState::kPhaseWaitsShuffle:
      EmitDeferredPhase(e.a, /*completed=*/true);
      return NextSegment(e.a, *a);
    default:
      return;
  }
}

}  // namespace weft::sim
