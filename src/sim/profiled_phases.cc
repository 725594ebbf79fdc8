// Profiled phases, the engine's side (docs/workload-format.md "Profiled
// phases"): a task with profiled phases holds, while a phase runs, that
// phase's demand, so its footprint changes during its life (RAS Table 2: a
// reducer shuffles with little and reduces with much), and reserves
// PhaseReservation (model/shuffle.h): the most the phases left need, so it
// only shrinks, but for a first "shuffle" phase behind a shuffle edge, which
// reserves its own demand and grows to the reduce profile when it ends.
// Before each phase the reservation moves: a shrink frees room at once; a
// growth must fit what is free on the machine (or in the container), but for
// the resources the policy overbooks, where it over-commits as the node
// would. A growth that does not fit parks the attempt, holding what it
// reserved, until something on its machine releases room; parked attempts
// are retried in the order they parked. (The engine cannot refuse a phase
// the way it refuses a launch: the task is already running; waiting is what
// a node that admits memory does.)
//
// Shuffle edges: a task behind a shuffle edge whose first profiled phase is
// named "shuffle" runs that phase from launch, alongside the edge's shuffle
// (sim/shuffle.cc), and the phase ends at the later of its own duration and
// the edge's shuffle end; then its next phase's profile applies.
#include <algorithm>

#include "model/shuffle.h"
#include "sim/engine_impl.h"

namespace weft::sim {

bool EngineCore::ShufflePhaseFirst(const Attempt& a) const {
  return weft::ShufflePhaseFirst(w_.jobs[a.task.job.value()].stages[a.task.stage]);
}

void EngineCore::RunCurrentSegment(uint32_t slot, bool alongside_shuffle) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (st.HasProfiledPhases() && !MoveReservation(slot)) {
    a.MoveTo(AttemptLifecycle::ParkedState(alongside_shuffle));
    parked_[a.machine.value()].emplace_back(slot, a.generation);
    return;
  }
  a.MoveTo(AttemptLifecycle::RunningState(alongside_shuffle));
  execution_->RunSegment(slot, ExecutionView(a));
}

bool EngineCore::MoveReservation(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Resources target = PhaseReservation(w_.jobs[a.task.job.value()].stages[a.task.stage], a.phase);
  if (target == a.reserved) return true;
  // What grows must fit what is free; what shrinks is given back.
  Resources grow;
  for (int k = 0; k < kNumResources; ++k) {
    const auto r = static_cast<Resource>(k);
    grow.set_micro(r, std::max<int64_t>(0, target.micro(r) - a.reserved.micro(r)));
  }
  if (a.container.valid()) {
    if (!containers_.MoveReservation(a.container, a.reserved, target, grow)) return false;
  } else {
    if (!grow.IsZero() && !cluster_.Fits(a.machine, grow, policy_.overbooked())) return false;
    cluster_.Deallocate(a.machine, a.reserved);
    cluster_.Allocate(a.machine, target);
  }
  const bool shrank = !a.reserved.FitsIn(target);
  a.reserved = target;
  const ReservationChange change{a.task, a.attempt_no, a.phase, a.machine, queue_.now(), target};
  for (RunObserver* o : observers_) o->OnReservationChange(change);
  if (shrank) WakeParked(a.machine);
  return true;
}

void EngineCore::WakeParked(MachineId m) {
  if (parked_[m.value()].empty() || retry_queued_[m.value()]) return;
  // Through the queue: the room may have been freed from inside another
  // attempt's end, which must finish first.
  retry_queued_[m.value()] = true;
  queue_.Push(Event{.time = queue_.now(), .type = EventType::kRetryParked, .a = m.value()});
}

void EngineCore::RetryParked(const Event& e) {
  const uint32_t m = static_cast<uint32_t>(e.a);
  retry_queued_[m] = false;
  std::vector<std::pair<uint32_t, uint32_t>> waiting;
  waiting.swap(parked_[m]);
  for (size_t i = 0; i < waiting.size(); ++i) {
    const auto [slot, generation] = waiting[i];
    Attempt* a = attempts_.Find(slot, generation);
    if (a == nullptr || !AttemptLifecycle::Parked(a->state())) continue;  // ended meanwhile
    // Parks it again, at the back, when it still does not fit.
    RunCurrentSegment(slot, /*alongside_shuffle=*/a->state() == AttemptState::kShufflingParked);
  }
}

void EngineCore::EmitDeferredPhase(uint32_t slot, bool completed) {
  Attempt& a = attempts_[slot];
  if (!a.deferred_phase.pending) return;
  a.deferred_phase.pending = false;
  const PhaseRecord record{a.task, a.attempt_no, 0, kCpu, a.machine, a.deferred_phase.start_us, queue_.now(),
                           a.deferred_phase.held, completed, a.container.valid()};
  for (RunObserver* o : observers_) o->OnPhaseEnd(record);
}

}  // namespace weft::sim
