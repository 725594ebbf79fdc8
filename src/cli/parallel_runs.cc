#include "cli/parallel_runs.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <sched.h>

namespace weft::cli {

unsigned DefaultJobs() {
  // The affinity mask, not hardware_concurrency: a process pinned to fewer
  // cores (taskset, a container's cpuset) should not oversubscribe them.
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void RunInParallel(unsigned jobs, size_t count, const std::function<void(size_t)>& task) {
  const size_t threads = std::min<size_t>(std::max(1u, jobs), count);
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  // Indices are handed out one at a time, so long and short runs balance.
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) task(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

}  // namespace weft::cli
