#include "policy/ursa/job_order.h"

#include <algorithm>

namespace weft::policy::ursa {

double SrjfScore(const MonotaskWork& remaining, const MonotaskWork& load) {
  double dot = 0;
  double norm2 = 0;
  for (Resource r : {kCpu, kDisk, kNet}) {
    dot += (2 * load[r] - remaining[r]) * remaining[r];
    norm2 += load[r] * load[r];
  }
  if (dot <= 0 || norm2 <= 0) return 0;
  return dot / norm2;
}

double PlacementBonus(JobOrder order, double weight, double elapsed_s, double srjf_score) {
  if (order == JobOrder::kEjf) return weight * elapsed_s;
  return weight / std::max(srjf_score, 1e-6);
}

}  // namespace weft::policy::ursa
