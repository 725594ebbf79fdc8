#include "policy/cobra/af.h"

#include <algorithm>

namespace weft::policy::cobra {

double AfNextDesire(double desire, double allocation, double utilization, bool waited, const AfParams& p) {
  if (utilization < p.delta && !waited) return desire / p.rho;  // inefficient
  if (desire > allocation) return desire;                        // efficient and deprived
  return desire * p.rho;                                         // efficient and satisfied
}

void UtilizationMeter::Sample(TimeUs now, const Resources& used, const Resources& size) {
  used_sum_ = Integrated(now, false);
  size_sum_ = Integrated(now, true);
  last_ = std::max(last_, now);
  used_ = used;
  size_ = size;
}

std::array<double, kNumResources> UtilizationMeter::Integrated(TimeUs now, bool size) const {
  std::array<double, kNumResources> sum = size ? size_sum_ : used_sum_;
  const double dt = static_cast<double>(std::max<TimeUs>(0, now - last_));
  const Resources& rate = size ? size_ : used_;
  for (int k = 0; k < kNumResources; ++k) sum[k] += dt * static_cast<double>(rate.micro(static_cast<Resource>(k)));
  return sum;
}

double UtilizationMeter::Utilization(TimeUs now) const {
  const auto used = Integrated(now, false);
  const auto size = Integrated(now, true);
  double u = 0;
  for (int k = 0; k < kNumResources; ++k) {
    if (size[k] > 0) u = std::max(u, used[k] / size[k]);
  }
  return u;
}

void UtilizationMeter::Restart(TimeUs now) {
  last_ = std::max(last_, now);
  used_sum_.fill(0);
  size_sum_.fill(0);
}

}  // namespace weft::policy::cobra
