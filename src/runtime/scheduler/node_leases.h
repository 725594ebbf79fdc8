// File: runtime/scheduler/node_leases.h
//
// NodeLeases: the scheduler's side of the nodes' leases (issue 34, finding
// 3). A node may run its tasks only while it holds a lease that the
// scheduler renews with every heartbeat it answers (LeaseGrant); past it,
// the node's keeper freezes them. So when a node is lost, the scheduler
// waits until the last lease it granted there has surely run out on the
// node, plus a margin, before its machine goes down in the engine and its
// tasks run elsewhere: a task never runs on two nodes at once.
//
// Per slot it keeps the latest time a lease granted to the slot's node may
// still hold (a grant at scheduler time t holds until t + lease: the node
// counts from when it sent the heartbeat, which was earlier), and the time,
// if any, at which a lost node's machine goes down. A scheduler restarted
// on its journal does not know what its previous run granted: every slot
// is held for a lease and a margin from the restart (Restarted).
//
// Plain data: no clock, no I/O (times are given). Not thread-safe: the core
// calls it under its lock.
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"

namespace weft::runtime {

class NodeLeases {
 public:
  // `lease_us` > 0: how long a grant holds; `margin_us`: what is added
  // before a lost node's tasks run elsewhere (the keeper's poll, freezing
  // itself, clock drift).
  NodeLeases(TimeUs lease_us, TimeUs margin_us) : lease_us_(lease_us), margin_us_(margin_us) {}

  TimeUs lease_us() const { return lease_us_; }
  // Resize makes room for `slots` slots (it only grows).
  void Resize(size_t slots) { slots_.resize(std::max(slots_.size(), slots)); }

  // Granted: the node in `slot` was granted a lease at `now` (a heartbeat
  // answered, or its registration).
  void Granted(uint32_t slot, TimeUs now);
  // Lost: the session of `slot` ended; its machine goes down (in the
  // engine) once its leases have run out plus the margin.
  void Lost(uint32_t slot);
  // Restarted: a scheduler started over a journal at `now`: its previous run
  // may have granted any slot a lease until now; every slot is held (its
  // machine, already down in the engine, may come up only after that lease
  // and the margin).
  void Restarted(TimeUs now);

  // Held: the machine of `slot` waits for a lease to run out: a node that
  // registers meanwhile comes up in the engine only when it has.
  bool held(uint32_t slot) const { return slot < slots_.size() && slots_[slot].due_us >= 0; }

  struct Due {
    uint32_t slot = 0;
    bool down = false;  // the machine goes down in the engine (it was up when lost)
  };
  // TakeDue: the held slots whose wait is over at `now`, no longer held.
  std::vector<Due> TakeDue(TimeUs now);

 private:
  struct Slot {
    TimeUs lease_until_us = 0;
    TimeUs due_us = -1;  // when the held machine is released; -1: not held
    bool down = false;
  };
  TimeUs lease_us_;
  TimeUs margin_us_;
  std::vector<Slot> slots_;
};

}  // namespace weft::runtime
