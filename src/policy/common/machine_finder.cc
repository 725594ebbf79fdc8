#include "policy/common/machine_finder.h"

#include <algorithm>

namespace weft::policy {

MachineFinder::MachineFinder(const ClusterState& cluster, ResourceMask unchecked)
    : cluster_(cluster), bits_((cluster.size() + 63) / 64, 0), unchecked_(unchecked) {
  for (uint32_t m = 0; m < cluster.size(); ++m) Refresh(MachineId(m));
}

void MachineFinder::NoteDemand(const Resources& demand) {
  if (has_smallest_ && smallest_.FitsIn(demand)) return;
  if (!has_smallest_) {
    smallest_ = demand;
    has_smallest_ = true;
  } else {
    for (int r = 0; r < kNumResources; ++r) {
      const auto res = static_cast<Resource>(r);
      smallest_.set_micro(res, std::min(smallest_.micro(res), demand.micro(res)));
    }
  }
  for (uint32_t m = 0; m < cluster_.size(); ++m) Refresh(MachineId(m));
}

bool MachineFinder::RoomForSmallest(MachineId m) const { return has_smallest_ && cluster_.Fits(m, smallest_, unchecked_); }

void MachineFinder::Refresh(MachineId m) {
  const bool candidate = RoomForSmallest(m);
  uint64_t& word = bits_[m.value() / 64];
  const uint64_t bit = uint64_t{1} << (m.value() % 64);
  const bool was = (word & bit) != 0;
  if (candidate == was) return;
  word ^= bit;
  count_ += candidate ? 1 : -1;
  if (candidate) first_word_ = std::min<size_t>(first_word_, m.value() / 64);
}

MachineId MachineFinder::FirstFit(const Resources& demand) const {
  MachineId found;
  ForEachCandidate([&](MachineId m) {
    if (cluster_.Fits(m, demand)) {
      found = m;
      return false;
    }
    return true;
  });
  return found;
}

}  // namespace weft::policy
