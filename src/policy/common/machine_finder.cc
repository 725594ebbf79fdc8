#include "policy/common/machine_finder.h"

namespace weft::policy {

MachineFinder::MachineFinder(const ClusterState& cluster)
    : cluster_(cluster), bits_((cluster.size() + 63) / 64, 0) {
  for (uint32_t m = 0; m < cluster.size(); ++m) Refresh(MachineId(m));
}

void MachineFinder::Refresh(MachineId m) {
  const Resources free = cluster_.free(m);
  const bool candidate = cluster_.up(m) && (free.micro(kCpu) > 0 || free.micro(kMem) > 0);
  uint64_t& word = bits_[m.value() / 64];
  const uint64_t bit = uint64_t{1} << (m.value() % 64);
  const bool was = (word & bit) != 0;
  if (candidate == was) return;
  word ^= bit;
  count_ += candidate ? 1 : -1;
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
