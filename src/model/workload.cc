#include "model/workload.h"

namespace weft {

uint64_t Workload::NumTasks() const {
  uint64_t n = 0;
  for (const Job& j : jobs) n += j.num_tasks;
  return n;
}

size_t Workload::NumStages() const {
  size_t n = 0;
  for (const Job& j : jobs) n += j.stages.size();
  return n;
}

}  // namespace weft
