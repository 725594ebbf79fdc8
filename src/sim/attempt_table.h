// File: sim/attempt_table.h (internal to sim/)
//
// AttemptTable: the engine's record of every launched or running attempt,
// kept in reusable slots. An attempt is named outside the table by its slot
// and the slot's generation (AttemptTable::Id): freeing a slot bumps its
// generation, so an event or a report about an attempt that has ended since
// (a stale id) finds nothing. The table also keeps, per machine, the slots of
// the attempts placed there, in no particular order (an attempt leaves its
// machine's list in constant time, on every attempt's end).
//
// The table owns the records' lifetime; what an attempt does (its shuffle,
// phases, reservation) is the engine's, which edits the record in place
// through operator[]. Lookups are inline: they are on every event's path.
// Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "core/ids.h"
#include "core/time.h"
#include "model/resources.h"
#include "sim/attempt_state.h"
#include "sim/execution.h"

namespace weft::sim {

// A launched or running attempt, as the engine tracks it; how its work
// progresses is its Execution's (sim/execution.h). What the execution is told
// of it (ExecutionAttempt: task, machine, attempt number, generation, current
// phase, launch order, demand, usage, container) is its base, so the engine
// hands the execution the record itself rather than a copy built per call.
// `generation` is bumped when the slot is freed, to drop stale events.
// Where it is in its life is its state (sim/attempt_state.h), which only
// MoveTo changes, through the lifecycle's table.
struct Attempt : ExecutionAttempt {
  uint32_t machine_index = 0;  // its place in AttemptTable's list of its machine's attempts
  TimeUs ready_us = 0;
  TimeUs start_us = 0;      // when it reached its machine (kArrived)
  // Profiled phases (sim/profiled_phases.cc): what the attempt reserves now
  // (its current phase's demand; `demand` otherwise).
  Resources reserved;
  // A first "shuffle" phase that completed while the edge's shuffle goes on:
  // its record waits for the shuffle's end (or the attempt's), holding when
  // the phase started and what it held.
  struct DeferredPhase {
    bool pending = false;
    TimeUs start_us = 0;
    double held = 0;
  } deferred_phase;

  AttemptState state() const { return state_; }
  // MoveTo: the lifecycle's move to `to`; an illegal one aborts (an engine bug).
  void MoveTo(AttemptState to) {
    if (!AttemptLifecycle::CanMove(state_, to)) [[unlikely]] AttemptLifecycle::IllegalMove(state_, to);
    state_ = to;
  }
  // arrived: it has reached its machine (any state past kLaunching).
  bool arrived() const { return state_ != AttemptState::kLaunching && state_ != AttemptState::kFree; }

 private:
  AttemptState state_ = AttemptState::kFree;
};

static_assert(std::is_trivially_destructible_v<Attempt>, "AttemptTable::New reuses a slot without destroying it");

class AttemptTable {
 public:
  // Id: the name of the attempt in `slot` at `generation`, unique for the
  // table's lifetime; SlotOf and GenerationOf take it apart.
  static uint64_t Id(uint32_t slot, uint32_t generation) { return (uint64_t{generation} << 32) | slot; }
  static uint32_t SlotOf(uint64_t id) { return static_cast<uint32_t>(id & 0xffffffffu); }
  static uint32_t GenerationOf(uint64_t id) { return static_cast<uint32_t>(id >> 32); }

  // SetMachines sizes the per-machine lists (before the first New).
  void SetMachines(size_t machines) { on_machine_.resize(machines); }

  // New takes a slot for an attempt placed on machine `m` (appended to its
  // list) and returns it: a fresh record with the slot's generation, the
  // machine and the next launch order.
  uint32_t New(MachineId m) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<uint32_t>(attempts_.size());
      attempts_.emplace_back();
    }
    Attempt& a = attempts_[slot];
    const uint32_t generation = a.generation;
    std::construct_at(&a);  // a fresh record in place: `a = Attempt()` builds one and copies it
    a.generation = generation;
    a.MoveTo(AttemptState::kLaunching);
    a.machine = m;
    a.launch_order = launches_++;
    auto& list = on_machine_[m.value()];
    a.machine_index = static_cast<uint32_t>(list.size());
    list.push_back(slot);
    return slot;
  }

  // Free ends the attempt in `slot`: it leaves its machine's list, and the
  // slot's generation moves on so that the old id is stale from now on.
  void Free(uint32_t slot) {
    Attempt& a = attempts_[slot];
    // Out of its machine's list: the last one there takes its place.
    auto& list = on_machine_[a.machine.value()];
    const uint32_t last = list.back();
    list[a.machine_index] = last;
    attempts_[last].machine_index = a.machine_index;
    list.pop_back();
    a.MoveTo(AttemptState::kFree);
    ++a.generation;
    free_.push_back(slot);
  }

  // operator[]: the record in `slot` (which must have been handed out).
  Attempt& operator[](uint32_t slot) { return attempts_[slot]; }
  const Attempt& operator[](uint32_t slot) const { return attempts_[slot]; }

  // Find: the live attempt in `slot` at `generation`; nullptr when the slot
  // was never used, is free, or has moved on to a later attempt.
  Attempt* Find(uint32_t slot, uint32_t generation) {
    if (slot >= attempts_.size()) return nullptr;
    Attempt& a = attempts_[slot];
    return a.state() == AttemptState::kFree || a.generation != generation ? nullptr : &a;
  }
  Attempt* Find(uint64_t id) { return Find(SlotOf(id), GenerationOf(id)); }
  const Attempt* Find(uint64_t id) const {
    const uint32_t slot = SlotOf(id);
    if (slot >= attempts_.size()) return nullptr;
    const Attempt& a = attempts_[slot];
    return a.state() == AttemptState::kFree || a.generation != GenerationOf(id) ? nullptr : &a;
  }

  // OnMachine: the slots of the attempts launched on machine `m` and not
  // ended, in no particular order.
  std::span<const uint32_t> OnMachine(MachineId m) const { return on_machine_[m.value()]; }

  // live: how many attempts are launched or running.
  uint64_t live() const { return attempts_.size() - free_.size(); }

 private:
  std::vector<Attempt> attempts_;
  std::vector<uint32_t> free_;
  std::vector<std::vector<uint32_t>> on_machine_;
  uint64_t launches_ = 0;
};

}  // namespace weft::sim
