#include "runtime/scheduler/node_leases.h"

#include <algorithm>

namespace weft::runtime {

void NodeLeases::Granted(uint32_t slot, TimeUs now) {
  Resize(slot + 1);
  slots_[slot].lease_until_us = std::max(slots_[slot].lease_until_us, now + lease_us_);
}

void NodeLeases::Lost(uint32_t slot) {
  Resize(slot + 1);
  Slot& s = slots_[slot];
  // Not held, its machine was up in the engine. Held, it still is (lost,
  // registered, lost again) or never came up (held since a restart).
  if (s.due_us < 0) s.down = true;
  // Lost again while still held (it registered and was lost once more):
  // the later lease decides, and the machine still has to go down.
  s.due_us = std::max(s.due_us, s.lease_until_us + margin_us_);
}

void NodeLeases::Restarted(TimeUs now) {
  for (Slot& s : slots_) {
    s.lease_until_us = std::max(s.lease_until_us, now + lease_us_);
    s.due_us = std::max(s.due_us, s.lease_until_us + margin_us_);
  }
}

std::vector<NodeLeases::Due> NodeLeases::TakeDue(TimeUs now) {
  std::vector<Due> due;
  for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
    Slot& s = slots_[slot];
    if (s.due_us < 0 || s.due_us > now) continue;
    due.push_back(Due{slot, s.down});
    s.due_us = -1;
    s.down = false;
  }
  return due;
}

}  // namespace weft::runtime
