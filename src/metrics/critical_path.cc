#include "metrics/critical_path.h"

#include <algorithm>
#include <vector>

#include "model/shuffle.h"

namespace weft {

TimeUs LongestTaskUs(const Stage& s, const Cluster& /*cluster*/) {
  // Stages given only by phases carry their nominal time in duration_us; a
  // first "shuffle" phase may run during the wait for the parents.
  if (ShufflePhaseFirst(s)) return s.duration_us - s.phases.front().duration_us;
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
