#include "model/shuffle.h"

#include <algorithm>
#include <cmath>

namespace weft {

uint32_t LaunchThreshold(const Edge& e, uint32_t parent_tasks) {
  if (e.kind != EdgeKind::kShuffle || e.slowstart >= 1) return parent_tasks;
  // The small tolerance keeps 0.3 x 10 at 3 tasks despite 0.3's binary
  // representation.
  const double tasks = std::ceil(e.slowstart * static_cast<double>(parent_tasks) - 1e-9);
  return std::clamp<uint32_t>(static_cast<uint32_t>(tasks), 1, parent_tasks);
}

bool HasShuffleParent(const Stage& stage) {
  for (const Edge& e : stage.parents) {
    if (e.kind == EdgeKind::kShuffle) return true;
  }
  return false;
}

bool ShufflePhaseFirst(const Stage& stage) {
  return stage.HasProfiledPhases() && stage.phases.front().name == "shuffle" && HasShuffleParent(stage);
}

Resources PhaseReservation(const Stage& stage, uint32_t phase) {
  if (phase == 0 && ShufflePhaseFirst(stage)) return stage.phases.front().demand;
  Resources r;
  for (size_t k = phase; k < stage.phases.size(); ++k) {
    for (int i = 0; i < kNumResources; ++i) {
      const auto res = static_cast<Resource>(i);
      r.set_micro(res, std::max(r.micro(res), stage.phases[k].demand.micro(res)));
    }
  }
  return r;
}

}  // namespace weft
