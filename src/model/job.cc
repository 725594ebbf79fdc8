#include "model/job.h"

#include <algorithm>
#include <cmath>

#include "model/cluster.h"

namespace weft {

TimeUs PhasesNominalUs(const std::vector<Phase>& phases, const Cluster& cluster) {
  double total_us = 0;
  for (const Phase& p : phases) {
    if (p.profiled) {
      total_us += static_cast<double>(p.duration_us);
      continue;
    }
    if (p.resource == kCpu) {
      total_us += p.work * 1e6;
      continue;
    }
    int64_t best = 0;
    for (const Machine& m : cluster.machines()) best = std::max(best, m.capacity.micro(p.resource));
    if (best > 0) total_us += p.work / (static_cast<double>(best) / kMicroUnits) * 1e6;
  }
  return static_cast<TimeUs>(std::ceil(total_us));
}

bool Stage::HasPipelinedParent() const {
  for (const Edge& e : parents) {
    if (e.kind == EdgeKind::kPipelined) return true;
  }
  return false;
}

double Job::CpuSeconds() const {
  double total = 0;
  for (const Stage& s : stages) {
    if (s.HasProfiledPhases()) {
      // Each profiled phase holds its own cpu demand for its duration.
      for (const Phase& p : s.phases) total += p.demand.units(kCpu) * UsToSeconds(p.duration_us) * s.num_tasks;
      continue;
    }
    if (s.duration_from_phases && s.durations_us.empty()) {
      for (const Phase& p : s.phases) {
        if (p.resource == kCpu) total += p.work * s.num_tasks;
      }
      continue;
    }
    if (s.durations_us.empty() && s.demands.empty()) {
      total += s.demand.units(kCpu) * UsToSeconds(s.duration_us) * s.num_tasks;
    } else {
      for (uint32_t i = 0; i < s.num_tasks; ++i) total += s.TaskDemand(i).units(kCpu) * UsToSeconds(s.TaskDuration(i));
    }
  }
  return total;
}

}  // namespace weft
