#include "model/locality.h"

#include <algorithm>
#include <cmath>

namespace weft {

TimeUs RemoteReadUs(const Cluster& cluster, const Stage& stage, uint32_t task, MachineId machine, bool same_rack) {
  const LocalityCost& cost = cluster.locality_cost();
  if (!cost.enabled) return 0;
  const double input_mb = stage.TaskInputMb(task);
  double seconds = 0;
  if (cost.rack_mbps > 0) {  // the bandwidths form (the reader requires both)
    seconds = input_mb / (same_rack ? cost.rack_mbps : cost.cross_rack_mbps);
  } else {
    const double duration_s = static_cast<double>(stage.TaskDuration(task)) / 1e6;
    const double disk_mbps = cluster.machine(machine).capacity.units(kDisk);
    const double read_part_s =
        input_mb > 0 && disk_mbps > 0 ? std::min(duration_s, input_mb / disk_mbps) : duration_s;
    seconds = ((same_rack ? cost.rack_factor : cost.remote_factor) - 1) * read_part_s;
  }
  return static_cast<TimeUs>(std::llround(seconds * 1e6));
}

}  // namespace weft
