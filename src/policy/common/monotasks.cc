#include "policy/common/monotasks.h"

namespace weft::policy {

std::vector<Phase> DeriveMonotasks(const Resources& usage, TimeUs duration_us) {
  const double seconds = static_cast<double>(duration_us) / kUsPerSecond;
  std::vector<Phase> phases;
  // Input first (Ursa's tasks pull or read their partition), compute last.
  for (Resource r : {kNet, kDisk, kCpu}) {
    const double work = usage.units(r) * seconds;
    if (work > 0) phases.push_back(Phase{.resource = r, .work = work});
  }
  if (phases.empty()) phases.push_back(Phase{.resource = kCpu, .work = seconds});
  return phases;
}

std::vector<Phase> TaskMonotasks(const JobView& job, const TaskRef& t) {
  const std::span<const Phase> given = job.Phases(t.stage);
  if (!given.empty()) return {given.begin(), given.end()};
  return DeriveMonotasks(job.ExpectedUsage(t), job.EstimatedDuration(t));
}

MonotaskWork WorkOf(const std::vector<Phase>& phases) {
  MonotaskWork work{};
  for (const Phase& p : phases) work[p.resource] += p.work;
  return work;
}

}  // namespace weft::policy
