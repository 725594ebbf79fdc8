// The locality cost's wait (docs/workload-format.md "locality_cost"): an
// attempt placed off the machines holding its input reads it remotely first,
// before its shuffle and its work. With the bandwidths form the read is a
// flow (sim/network_flows.h) from a machine holding the input to the
// attempt's machine, capped at rack_mbps or cross_rack_mbps and sharing the
// interfaces and uplinks it crosses with every other flow; with the factors
// form (no bytes to move) it is a wait of RemoteReadUs (model/locality.h).
// The read is the engine's, so it is the same in the fixed and contention
// models. A real run (the runtime's execution, which MovesBytes) reads the
// input for real instead, whether or not a locality cost is given: from the
// same source, through the execution (StartRealRead), and the read ends when
// the reader's node reports it. While it reads, the attempt holds what it
// reserved and uses nothing.
#include "model/locality.h"
#include "sim/engine_impl.h"

namespace weft::sim {

bool EngineCore::StartRemoteRead(uint32_t slot) {
  if (execution_->MovesBytes()) return StartRealRead(slot);
  const LocalityCost& cost = w_.cluster.locality_cost();
  if (!cost.enabled || !execution_->ChargesRemoteReads()) return false;
  const Attempt& a = attempts_[slot];
  const Locality where = LocalityOf(a);
  if (where != Locality::kRack && where != Locality::kRemote) return false;
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (cost.rack_mbps > 0) {  // bytes to move: a flow
    const double mb = st.TaskInputMb(a.task.index);
    if (mb <= 0) return false;
    attempts_[slot].MoveTo(AttemptState::kReadingInput);
    const double cap = where == Locality::kRack ? cost.rack_mbps : cost.cross_rack_mbps;
    network_.Start(ReadSource(a), a.machine, mb, cap,
                   FlowOwner{.slot = slot, .generation = a.generation, .kind = FlowKind::kRemoteRead});
    return true;
  }
  const TimeUs read_us = RemoteReadUs(w_.cluster, st, a.task.index, a.machine, where == Locality::kRack);
  if (read_us <= 0) return false;
  attempts_[slot].MoveTo(AttemptState::kReadingInput);
  queue_.Push(Event{.time = queue_.now() + read_us, .type = EventType::kRemoteReadEnd, .a = slot,
                    .b = a.generation});
  return true;
}

bool EngineCore::StartRealRead(uint32_t slot) {
  const Attempt& a = attempts_[slot];
  const Locality where = LocalityOf(a);
  if (where != Locality::kRack && where != Locality::kRemote) return false;
  const double mb = w_.jobs[a.task.job.value()].stages[a.task.stage].TaskInputMb(a.task.index);
  if (mb <= 0) return false;
  execution_->MoveBytes(slot, ExecutionView(a), ReadSource(a), mb);
  if (execution_->LiveMoves(slot) == 0) return false;  // it could not be moved: nothing to wait for
  attempts_[slot].MoveTo(AttemptState::kReadingInput);
  return true;
}

// The source, as an HDFS client picks a replica: the closest holder (one in
// the attempt's rack before one elsewhere), then the one sending the fewest
// flows now, then the first listed (deterministic).
MachineId EngineCore::ReadSource(const Attempt& a) const {
  const auto holders = w_.jobs[a.task.job.value()].stages[a.task.stage].Preferences(a.task.index);
  const RackId rack = cluster_.rack(a.machine);
  MachineId best = holders.front();
  auto rank = [&](MachineId m) { return std::pair{cluster_.rack(m) == rack ? 0 : 1, network_.Outgoing(m)}; };
  for (const MachineId m : holders) {
    if (rank(m) < rank(best)) best = m;
  }
  return best;
}

void EngineCore::EndRemoteRead(const Event& e) {
  if (attempts_.Find(e.a, e.b) == nullptr) return;  // the attempt ended meanwhile
  InputRead(e.a);
}

}  // namespace weft::sim
