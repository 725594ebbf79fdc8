// The shuffle phase of a task behind shuffle edges (Hadoop's reduce slow
// start; docs/workload-format.md "after"): launched once the slow-start
// fraction of a parent's tasks is done, the task copies each parent task's
// output (the edge's shuffle_mb) from the machine where that task ran, as
// the parent tasks end: one flow per source machine (sim/network_flows.h),
// sharing the interfaces and uplinks it crosses with every other flow; an
// output on the task's own machine is not copied over the network. Its
// shuffle ends once the last parent task has ended and its last flow is
// done, and only then does its own work begin (BeginSegments again). While
// it shuffles the attempt holds what it reserved and runs no segment. A real
// run's execution moves the copies itself (Execution::MovesBytes:
// one transfer between the nodes per copy, ended when the reducer's node
// reports it) instead of these modelled flows.
#include "sim/engine_impl.h"

namespace weft::sim {

bool EngineCore::StartShuffle(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  const policy::JobProgress& p = jobs_.progress(a.task.job);
  const bool waiting = p.stages[a.task.stage].barrier_parents_left > 0;
  // The parents' outputs done so far that are on other machines.
  bool remote = false;
  for (const Edge& e : st.parents) {
    if (e.kind != EdgeKind::kShuffle || e.shuffle_mb <= 0) continue;
    for (const auto& [machine, tasks] : jobs_.Outputs(a.task.job, e.stage)) remote |= machine != a.machine;
  }
  if (!waiting && !remote) return false;  // as after a barrier: nothing to wait for
  a.MoveTo(AttemptState::kShuffling);
  for (const Edge& e : st.parents) {
    if (e.kind != EdgeKind::kShuffle || e.shuffle_mb <= 0) continue;
    for (const auto& [machine, tasks] : jobs_.Outputs(a.task.job, e.stage)) {
      CopyFrom(slot, a, machine, e.shuffle_mb * tasks);
    }
  }
  if (waiting) jobs_.AddShuffling(a.task, slot, a.generation);
  return true;
}

void EngineCore::CopyFrom(uint32_t slot, const Attempt& a, MachineId from, double mb) {
  if (from == a.machine || mb <= 0) return;  // on its own machine: nothing crosses the network
  // A real run moves the bytes for real (docs/runtime.md, "Bytes between nodes").
  if (execution_->MovesBytes()) return execution_->MoveBytes(slot, ExecutionView(a), from, mb);
  const NetworkFlows::FlowId f = network_.FlowFrom(slot, a.generation, from);
  if (f != NetworkFlows::kNoFlow) return network_.AddBytes(f, mb);
  network_.Start(from, a.machine, mb, NetworkFlows::kNoCap,
                 FlowOwner{.slot = slot, .generation = a.generation, .kind = FlowKind::kShuffle});
}

void EngineCore::ShuffleOutputReady(JobId job, const Edge& child, MachineId where) {
  if (child.shuffle_mb <= 0) return;
  for (const auto& [slot, generation] : jobs_.Shuffling(job, child.stage)) {
    const Attempt* a = attempts_.Find(slot, generation);
    if (a == nullptr || !AttemptLifecycle::Shuffling(a->state())) continue;  // ended meanwhile
    CopyFrom(slot, *a, where, child.shuffle_mb);
  }
}

void EngineCore::ShuffleParentsDone(JobId job, uint32_t stage) {
  for (const auto& [slot, generation] : jobs_.TakeShuffling(job, stage)) {
    const Attempt* a = attempts_.Find(slot, generation);
    if (a == nullptr || !AttemptLifecycle::Shuffling(a->state())) continue;  // ended meanwhile
    ShuffleMayEnd(slot);
  }
}

void EngineCore::ShuffleMayEnd(uint32_t slot) {
  const Attempt& a = attempts_[slot];
  if (!AttemptLifecycle::Shuffling(a.state())) return;
  if (network_.Live(slot, a.generation) > 0 || execution_->LiveMoves(slot) > 0) return;  // still copying
  if (jobs_.progress(a.task.job).stages[a.task.stage].barrier_parents_left > 0) return;  // more to come
  ScheduleShuffleEnd(slot);
}

void EngineCore::ScheduleShuffleEnd(uint32_t slot) {
  const Attempt& a = attempts_[slot];
  // Always through the queue, even when due now: the shuffle's end must not
  // run the task's work from inside another task's end.
  queue_.Push(Event{.time = queue_.now(), .type = EventType::kShuffleEnd, .a = slot, .b = a.generation});
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
