// Attempts on machines, the engine's side: launch bookkeeping, the start of
// an attempt on its machine, the sequence of its phases (handed to a node
// agent that controls phases, or run back to back), and its end, whoever
// decides it. How the work itself progresses, and what it holds and uses,
// is the run's Execution's (sim/execution.h); the engine hears back through
// the ExecutionHost callbacks below.
#include <algorithm>

#include "model/shuffle.h"
#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::Outcome;
using policy::TaskState;

Locality EngineCore::LocalityOf(const Attempt& a) const {
  const auto prefs = w_.jobs[a.task.job.value()].stages[a.task.stage].Preferences(a.task.index);
  if (prefs.empty()) return Locality::kNone;
  const RackId rack = cluster_.rack(a.machine);
  bool same_rack = false;
  for (MachineId p : prefs) {
    if (p == a.machine) return Locality::kNode;
    same_rack |= cluster_.rack(p) == rack;
  }
  return same_rack ? Locality::kRack : Locality::kRemote;
}

bool EngineCore::AgentControlsPhases(MachineId m) const {
  if (remote_.attached()) return remote_.controls_phases() && HasAgent(m.value());
  return !nodes_.empty() && nodes_[m.value()] && nodes_[m.value()]->ControlsPhases();
}

void EngineCore::StartAttempt(uint32_t slot) {
  events_since_progress_ = 0;
  Attempt& a = attempts_[slot];
  a.MoveTo(AttemptState::kArrived);
  a.start_us = queue_.now();
  jobs_.Started(a.task, a.start_us);
  ++start_counter_;
  const AttemptStart start{a.task, a.attempt_no, a.machine, a.start_us, a.demand};
  for (RunObserver* o : observers_) o->OnAttemptStart(start);
  execution_->Begin(slot, ExecutionView(a));
}

// The steps from arrival to the work, each at most once per attempt: the
// remote read (sim/locality.cc), the shuffle (sim/shuffle.cc), the first
// segment. Each step that waits moves the attempt to its waiting state, and
// its end (EndRemoteRead, EndShuffle) takes the next step.
void EngineCore::BeginSegments(uint32_t slot) {
  if (StartRemoteRead(slot)) return;
  InputRead(slot);
}

void EngineCore::InputRead(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (HasShuffleParent(st) && StartShuffle(slot)) {
    // A first profiled phase named "shuffle" runs alongside the edge's
    // shuffle (sim/profiled_phases.cc); otherwise the work waits for it.
    if (!ShufflePhaseFirst(a)) return;
    return BeginWork(slot, a, st, /*alongside_shuffle=*/true);
  }
  BeginWork(slot, a, st, /*alongside_shuffle=*/false);
}

void EngineCore::BeginWork(uint32_t slot, Attempt& a, const Stage& st, bool alongside_shuffle) {
  if (!st.phases.empty() && AgentControlsPhases(a.machine)) {
    a.MoveTo(AttemptLifecycle::PhaseReadyState(alongside_shuffle));
    Mail mail{.kind = MailKind::kPhaseReady, .to = Address::Node(a.machine), .phase = 0};
    mail.end.task = a.task;
    mailbox_.Post(std::move(mail), 0);
    return;
  }
  RunCurrentSegment(slot, alongside_shuffle);
}

void EngineCore::SegmentDone(uint32_t slot) {
  Attempt& a = attempts_[slot];
  if (!AttemptLifecycle::Running(a.state())) AttemptLifecycle::IllegalEvent(a.state(), "segment done");
  if (a.state() == AttemptState::kShufflingRunning) {
    // A "shuffle" phase that did its work before the edge's shuffle ended:
    // it ends with the shuffle (EndShuffle).
    a.MoveTo(AttemptState::kPhaseWaitsShuffle);
    return;
  }
  NextSegment(slot, a);
}

void EngineCore::NextSegment(uint32_t slot, Attempt& a) {
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (a.phase + 1u >= std::max<size_t>(st.phases.size(), 1)) return EndAttempt(slot, Outcome::kOk);
  ++a.phase;
  if (AgentControlsPhases(a.machine)) {
    a.MoveTo(AttemptState::kPhaseReady);
    Mail mail{.kind = MailKind::kPhaseReady, .to = Address::Node(a.machine), .phase = a.phase};
    mail.end.task = a.task;
    mailbox_.Post(std::move(mail), 0);
    return;
  }
  RunCurrentSegment(slot, /*alongside_shuffle=*/false);
}

void EngineCore::UsageChanged(uint32_t slot, const Resources& before, const Resources& after) {
  const Attempt& a = attempts_[slot];
  cluster_.RemoveUsed(a.machine, before);
  cluster_.AddUsed(a.machine, after);
  if (a.container.valid()) containers_.UsageChanged(a.container, before, after);
}

void EngineCore::PhaseEnded(uint32_t slot, uint32_t phase, TimeUs start_us, double held, bool completed) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (completed && AttemptLifecycle::Shuffling(a.state())) {
    // The "shuffle" phase's record waits for the edge's shuffle to end.
    a.deferred_phase = {.pending = true, .start_us = start_us, .held = held};
    return;
  }
  const PhaseRecord record{a.task,   a.attempt_no, phase,     st.phases[phase].resource, a.machine,
                           start_us, queue_.now(), held,      completed,                 a.container.valid()};
  for (RunObserver* o : observers_) o->OnPhaseEnd(record);
  // An agent that controls phases hears each end before the next is ready.
  if (completed && AgentControlsPhases(a.machine)) {
    Mail mail{.kind = MailKind::kPhaseEnded, .to = Address::Node(a.machine), .phase = phase};
    mail.end.task = a.task;
    mailbox_.Post(std::move(mail), 0);
  }
}

void EngineCore::EndAttempt(uint32_t slot, Outcome outcome) {
  events_since_progress_ = 0;
  Attempt a = attempts_[slot];
  const AttemptAccount account = execution_->End(slot, ExecutionView(a));
  EmitDeferredPhase(slot, /*completed=*/false);
  network_.EndOwner(slot, a.generation, ended_flows_);  // what it was still reading or copying
  if (!ended_flows_.empty()) ReportFlows();
  const TaskRef t = a.task;
  const MachineId m = a.machine;
  const TimeUs now = queue_.now();
  // Release what the attempt reserved.
  cluster_.AddRunning(m, -1);
  if (a.container.valid()) {
    containers_.RemoveTask(a.container, a.reserved);
  } else {
    cluster_.Deallocate(m, a.reserved);
  }
  WakeParked(m);
  attempts_.Free(slot);

  ++stats_.attempts;
  TimeUs start = a.arrived() ? a.start_us : now;
  if (a.arrived() && account.start_us >= 0) start = std::clamp(account.start_us, start, now);
  const JobTracker::EndVerdict verdict = jobs_.AttemptEnded(t, outcome, now - start, opt_.max_attempts);
  const AttemptRecord record{t,       a.attempt_no,          m,
                             a.ready_us, start,              now,
                             outcome, a.demand,              a.arrived() ? account.usage.average : a.usage,
                             LocalityOf(a), a.container.valid(), account.held};
  for (RunObserver* o : observers_) o->OnAttemptEnd(record);

  policy::TaskEnd end{t, m, outcome, a.attempt_no, start, now, a.container, verdict.retry, account.usage};
  mailbox_.PostTaskEnd(HomeOf(t.job), end, opt_.latency_us);
  if (HasAgent(m.value())) mailbox_.PostTaskEnd(Address::Node(m), end, 0);

  if (outcome == Outcome::kOk) {
    ++stats_.tasks_done;
    jobs_.TaskDone(t, now, m);
  } else if (verdict.retry) {
    jobs_.MakeReady(t, true, now);
  } else if (verdict.job_fails) {
    FinishJob(t.job, false);
  } else {
    jobs_.Abandon(t);
  }
}

}  // namespace weft::sim
