#include "metrics/critical_path.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace weft {

TimeUs LongestTaskUs(const Stage& s, const Cluster& cluster) {
  if (!s.phases.empty()) {
    double total_us = 0;
    for (const Phase& p : s.phases) {
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
  if (s.durations_us.empty()) return s.duration_us;
  return *std::max_element(s.durations_us.begin(), s.durations_us.end());
}

TimeUs CriticalPathUs(const Job& job, const Cluster& cluster) {
  std::vector<TimeUs> finish(job.stages.size(), 0);
  TimeUs longest = 0;
  for (uint32_t s : job.topo_order) {
    TimeUs start = 0;
    for (const Edge& e : job.stages[s].parents) start = std::max(start, finish[e.stage]);
    finish[s] = start + LongestTaskUs(job.stages[s], cluster);
    longest = std::max(longest, finish[s]);
  }
  return longest;
}

}  // namespace weft
