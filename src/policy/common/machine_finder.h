// File: policy/common/machine_finder.h
//
// MachineFinder: finds machines with room for a demand without scanning the
// whole cluster. It keeps a bitset of "candidate" machines: up, with room for
// the smallest demand its owner has announced (NoteDemand; componentwise
// minimum over all demands seen). The owner refreshes a machine whenever its
// allocation may have changed (after a launch, a task end, a machine going up
// or down). In a busy cluster few machines are candidates, so a search
// touches only those; in an idle one the first candidate fits.
// Not thread-safe; owned by one role.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ids.h"
#include "model/resources.h"
#include "policy/cluster_state.h"

namespace weft::policy {

class MachineFinder {
 public:
  // `unchecked`: resources a machine's room is not judged by (a granter
  // over-subscribing cpu checks cpu itself, container_protocol.h).
  explicit MachineFinder(const ClusterState& cluster, ResourceMask unchecked = 0);

  // NoteDemand announces a demand the owner may place; when it lowers the
  // smallest demand, every machine is re-evaluated (rare: demands are few).
  void NoteDemand(const Resources& demand);

  // Refresh re-evaluates whether `m` is a candidate.
  void Refresh(MachineId m);

  // RoomForSmallest: `m` is up and has room for the smallest noted demand.
  bool RoomForSmallest(MachineId m) const;

  // FirstFit returns the lowest-numbered machine where `demand` fits, or an
  // invalid id.
  MachineId FirstFit(const Resources& demand) const;

  // ForEachCandidate calls fn(m) for candidates in increasing order until it
  // returns false.
  template <typename Fn>
  void ForEachCandidate(Fn&& fn) const {
    // The words below first_word_ are empty: in a busy cluster the
    // low-numbered machines are the full ones, and every search would
    // otherwise walk past them.
    while (first_word_ < bits_.size() && bits_[first_word_] == 0) ++first_word_;
    for (size_t w = first_word_; w < bits_.size(); ++w) {
      uint64_t word = bits_[w];
      while (word != 0) {
        const int b = __builtin_ctzll(word);
        word &= word - 1;
        if (!fn(MachineId(static_cast<uint32_t>(w * 64 + b)))) return;
      }
    }
  }

  uint32_t num_candidates() const { return count_; }

 private:
  const ClusterState& cluster_;
  std::vector<uint64_t> bits_;
  // Every word before this one is zero (a lower bound on the first
  // candidate's word, kept by Refresh and raised by searches).
  mutable size_t first_word_ = 0;
  uint32_t count_ = 0;
  ResourceMask unchecked_;
  bool has_smallest_ = false;
  Resources smallest_;
};

}  // namespace weft::policy
