// File: sim/slot_table.h (internal to sim/)
//
// SlotTable: values parked under a small integer until taken back, with the
// slots of taken values reused (no allocation once the table has grown to
// the most values parked at once). The mailbox keeps mail in flight in one,
// and the rare bulky parts of mail (a message's list, a container's record)
// in others, so that the mail itself stays small and trivially copyable.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace weft::sim {

inline constexpr uint32_t kNoSlot = UINT32_MAX;

template <typename T>
class SlotTable {
 public:
  template <typename U>
  uint32_t Put(U&& value) {
    if (free_.empty()) {
      values_.push_back(std::forward<U>(value));
      return static_cast<uint32_t>(values_.size() - 1);
    }
    const uint32_t slot = free_.back();
    free_.pop_back();
    values_[slot] = std::forward<U>(value);
    return slot;
  }
  // Emplace parks a default value and returns its slot, to be filled in
  // place through At.
  uint32_t Emplace() { return Put(T()); }
  // At: the value parked at `slot`, in place (valid until the next Put).
  T& At(uint32_t slot) { return values_[slot]; }
  // Has: `slot` has been used (its value may have been taken since).
  bool Has(uint32_t slot) const { return slot < values_.size(); }
  // Take returns the value parked at `slot` (from Put, not taken yet) and
  // frees the slot.
  T Take(uint32_t slot) {
    T value = std::move(values_[slot]);
    free_.push_back(slot);
    return value;
  }

 private:
  std::vector<T> values_;
  std::vector<uint32_t> free_;
};

}  // namespace weft::sim
