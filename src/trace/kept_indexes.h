// File: trace/kept_indexes.h
//
// KeptIndexes: which task (instance) indexes of one job a reader's first pass
// kept, for its second pass to hold only those. Google's traces number a
// job's tasks 0..n-1, so the set is a bit per index over the range of the kept
// ones. When the kept indexes are too sparse for that (the bitmap would be
// more than a word per kept index), the set is not stored: Holds() answers
// true for every index and exact() false, and the second pass must hold every
// task of the job and apply the rules again.
//
// Build it from the kept indexes' range and count, then Add each one. A set
// spanning up to 64 indexes needs no allocation (32 bytes in all); a default
// one is not exact. Thread-compatible.
#pragma once

#include <cstdint>

#include "absl/container/inlined_vector.h"

namespace weft {

class KeptIndexes {
 public:
  KeptIndexes() = default;
  // lo..hi: the lowest and highest kept index; count: how many are kept.
  KeptIndexes(int64_t lo, int64_t hi, uint64_t count) : min_index_(lo) {
    const uint64_t words = Offset(hi) / 64 + 1;
    if (words <= count + 1) bits_.assign(words, 0);
  }

  void Add(int64_t index) {
    if (!exact()) return;
    const uint64_t i = Offset(index);
    bits_[i / 64] |= uint64_t{1} << (i % 64);
  }

  bool Holds(int64_t index) const {
    if (!exact()) return true;
    if (index < min_index_) return false;
    const uint64_t i = Offset(index);
    return i / 64 < bits_.size() && (bits_[i / 64] >> (i % 64) & 1) != 0;
  }

  // exact: Holds() answers for the kept indexes alone.
  bool exact() const { return !bits_.empty(); }

 private:
  uint64_t Offset(int64_t index) const { return static_cast<uint64_t>(index) - static_cast<uint64_t>(min_index_); }

  int64_t min_index_ = 0;
  absl::InlinedVector<uint64_t, 1> bits_;
};

}  // namespace weft
