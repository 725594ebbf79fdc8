// The locality cost's wait (docs/workload-format.md "locality_cost"): an
// attempt placed off the machines holding its input reads it remotely first,
// for RemoteReadUs (model/locality.h), before its shuffle and its work. The
// wait is the engine's, not the execution model's, so it is the same in the
// fixed and contention models; real runs (the runtime) charge nothing, as a
// real task reads its input for real. While it reads, the attempt holds what it reserved and uses
// nothing. Deliberate simplification: remote reads do not share the network
// with each other or with running work.
#include "model/locality.h"
#include "sim/engine_impl.h"

namespace weft::sim {

bool EngineCore::StartRemoteRead(uint32_t slot) {
  if (!w_.cluster.locality_cost().enabled || !execution_->ChargesRemoteReads()) return false;
  const Attempt& a = attempts_[slot];
  const Locality where = LocalityOf(a);
  if (where != Locality::kRack && where != Locality::kRemote) return false;
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  const TimeUs read_us = RemoteReadUs(w_.cluster, st, a.task.index, a.machine, where == Locality::kRack);
  if (read_us <= 0) return false;
  attempts_[slot].MoveTo(AttemptState::kReadingInput);
  queue_.Push(Event{.time = queue_.now() + read_us, .type = EventType::kRemoteReadEnd, .a = slot,
                    .b = a.generation});
  return true;
}

void EngineCore::EndRemoteRead(const Event& e) {
  if (attempts_.Find(e.a, e.b) == nullptr) return;  // the attempt ended meanwhile
  InputRead(e.a);
}

}  // namespace weft::sim
