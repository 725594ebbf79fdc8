#include "policy/ursa/estimates.h"

namespace weft::policy::ursa {

double InputMb(const JobView& /*job*/, const TaskRef& /*t*/, const MonotaskWork& work) {
  return work[kNet] + work[kDisk];
}

std::optional<double> MemoryEstimateGb(const JobView& /*job*/) { return std::nullopt; }

TaskLoad LoadOf(const JobView& job, const TaskRef& t, const MonotaskWork& work, double mem_gb) {
  TaskLoad load{.work = work, .mem_gb = mem_gb};
  const Resources& demand = job.demand(t.stage);
  if (job.has_phases(t.stage)) {
    load.reserve.set_micro(kMem, demand.micro(kMem));
  } else {
    load.reserve = demand;
    load.whole = true;
  }
  return load;
}

}  // namespace weft::policy::ursa
