// The engine's side of flows (sim/network_flows.h): a flow that is done goes
// back to the attempt it worked for (its remote read is over, or its shuffle
// may end), and every flow that ended, done or cut short, is reported to the
// run's observers (flows.csv, the schedule checker). An execution that moves
// bytes itself reports the end of its moves through BytesMoved.
#include "sim/engine_impl.h"

namespace weft::sim {

void EngineCore::FlowEnded(const Event& e) {
  const std::optional<FlowOwner> owner = network_.Finish(e, ended_flows_);
  ReportFlows();
  if (!owner || attempts_.Find(owner->slot, owner->generation) == nullptr) return;
  if (owner->kind == FlowKind::kRemoteRead) return InputRead(owner->slot);
  ShuffleMayEnd(owner->slot);
}

void EngineCore::BytesMoved(uint32_t slot) {
  if (attempts_[slot].state() == AttemptState::kReadingInput) return InputRead(slot);
  ShuffleMayEnd(slot);
}

void EngineCore::ReportFlows() {
  for (const EndedFlow& f : ended_flows_) {
    const Attempt* a = attempts_.Find(f.owner.slot, f.owner.generation);
    if (a == nullptr) continue;
    const FlowRecord record{.task = a->task, .attempt = a->attempt_no, .kind = f.owner.kind, .from = f.from,
                            .to = f.to, .start_us = f.start_us, .end_us = f.end_us, .mb = f.mb, .done = f.done};
    for (RunObserver* o : observers_) o->OnFlowEnd(record);
  }
  ended_flows_.clear();
}

}  // namespace weft::sim
