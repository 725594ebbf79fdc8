// File: policy/cobra/af.h
//
// COBRA's adaptive feedback (Af, Algorithm 1 of the paper, section IV) and
// the measurement it feeds on. Pure arithmetic: no I/O, no clock (the caller
// passes the time), so both are unit-tested from the algorithm's text.
//
// Af computes a job's desire for period q (the number of fixed-capacity
// containers it asks the job scheduler for) from period q-1's desire d,
// allocation a and utilization u:
//   - inefficient (u < δ and no task waited in q-1): d / ρ;
//   - efficient and deprived (a < d): d;
//   - efficient and satisfied: d · ρ.
// u is max over resources k of the average utilization of the job's
// containers for k over the period: the resource really used (measured,
// ContainerInfo::used) divided by the containers' size, integrated over time
// (UtilizationMeter).
#pragma once

#include <array>

#include "core/time.h"
#include "model/resources.h"

namespace weft::policy::cobra {

struct AfParams {
  double rho = 1.5;    // the resource adjustment factor ρ > 1
  double delta = 0.7;  // the utilization threshold δ in (0, 1]
};

// AfNextDesire: Algorithm 1's lines 3-9 (line 1, q = 1, is the caller's
// initial desire). `waited`: some task of the job waited in period q-1.
double AfNextDesire(double desire, double allocation, double utilization, bool waited, const AfParams& p);

// UtilizationMeter integrates, over one period, what the job's containers
// really use and their size, per resource, from samples: a sample holds from
// the time it is taken until the next one (piecewise constant).
class UtilizationMeter {
 public:
  // Sample: from `now` on, the containers use `used` and their sizes sum to
  // `size`. Samples must come in time order.
  void Sample(TimeUs now, const Resources& used, const Resources& size);
  // Utilization: max over resources of ∫used / ∫size over [period start, now]
  // (resources no container has are skipped); 0 when nothing was held.
  double Utilization(TimeUs now) const;
  // Restart begins a new period at `now`, keeping the last sample's rates.
  void Restart(TimeUs now);

 private:
  std::array<double, kNumResources> Integrated(TimeUs now, bool size) const;

  TimeUs last_ = 0;
  Resources used_;
  Resources size_;
  std::array<double, kNumResources> used_sum_{};  // micro-units × µs
  std::array<double, kNumResources> size_sum_{};
};

}  // namespace weft::policy::cobra
