#include "model/job.h"

namespace weft {

bool Stage::HasPipelinedParent() const {
  for (const Edge& e : parents) {
    if (e.kind == EdgeKind::kPipelined) return true;
  }
  return false;
}

double Job::CpuSeconds() const {
  double total = 0;
  for (const Stage& s : stages) {
    const double cores = s.demand.units(kCpu);
    if (s.duration_us == 0 && s.durations_us.empty()) {
      for (const Phase& p : s.phases) {
        if (p.resource == kCpu) total += p.work * s.num_tasks;
      }
      continue;
    }
    if (s.durations_us.empty()) {
      total += cores * UsToSeconds(s.duration_us) * s.num_tasks;
    } else {
      for (TimeUs d : s.durations_us) total += cores * UsToSeconds(d);
    }
  }
  return total;
}

}  // namespace weft
