#include "policy/ursa/estimates.h"

namespace weft::policy::ursa {

double InputMb(const JobView& job, const TaskRef& t, const MonotaskWork& work) {
  const double given = job.input_mb(t);
  return given > 0 ? given : work[kNet] + work[kDisk];
}

std::optional<double> MemoryEstimateGb(const JobView& job) { return job.memory_estimate_gb(); }

TaskLoad LoadOf(const JobView& job, const TaskRef& t, const MonotaskWork& work, double mem_gb) {
  TaskLoad load{.work = work, .mem_gb = mem_gb};
  const Resources& demand = job.task_demand(t);
  if (job.has_phases(t.stage)) {
    load.reserve.set_micro(kMem, demand.micro(kMem));
  } else {
    load.reserve = demand;
    load.whole = true;
  }
  return load;
}

}  // namespace weft::policy::ursa
