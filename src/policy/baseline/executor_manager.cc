// The executor policy's job manager: Spark's driver under static allocation.
// It asks for its executors once, keeps them for the job's life, and runs the
// job's tasks in them, FIFO by stage then index.
#include <algorithm>

#include "policy/baseline/executor_roles.h"

namespace weft::policy::baseline {
namespace {

Resources Max(const Resources& a, const Resources& b) {
  Resources m;
  for (int i = 0; i < kNumResources; ++i) {
    const auto r = static_cast<Resource>(i);
    m.set_micro(r, std::max(a.micro(r), b.micro(r)));
  }
  return m;
}

}  // namespace

ExecutorManager::ExecutorManager(Context& ctx, JobId job, const ExecutorConfig& config)
    : JobManager(ctx, job), config_(config) {}

void ExecutorManager::OnStart() {
  const JobView view = ctx_.job(job_);
  // All executors of a job are alike and grown to hold its largest task, as a
  // Spark user must size spark.executor.cores/memory (executor.h).
  executor_floor_ = config_.executor;
  for (uint32_t s = 0; s < view.num_stages(); ++s) executor_floor_ = Max(executor_floor_, view.demand(s));
  Request(executor_floor_, config_.executors, /*exact=*/false);
}

void ExecutorManager::OnTasksReady(const TaskRange& tasks) {
  ready_.Add(tasks, OrderKey{tasks.stage, 0, 0});
  Fill();
}

void ExecutorManager::OnTaskEnded(const TaskEnd& end) {
  if (end.container.valid()) pool_.Ended(end.container, ctx_.job(job_).demand(end.task.stage));
  Fill();
}

void ExecutorManager::OnContainerGranted(const ContainerInfo& container) {
  if (outstanding_ > 0) --outstanding_;
  pool_.Add(container);
  Fill();
}

void ExecutorManager::OnContainerLost(const ContainerInfo& container) {
  // Its tasks were killed with the machine and come back as ready; the
  // executor itself is replaced.
  pool_.Remove(container.id);
  Request(executor_floor_, 1, /*exact=*/false);
}

void ExecutorManager::Request(const Resources& floor, int64_t count, bool exact) {
  if (count <= 0) return;
  outstanding_ += count;
  Message m;
  m.type = kRequestContainers;
  m.a = count;
  m.b = exact ? 1 : 0;
  m.list = EncodeResources(floor);
  ctx_.Send(Address::Scheduler(0), std::move(m));
}

void ExecutorManager::Fill() {
  if (ready_.empty()) return;
  if (!pool_.empty()) {
    const JobView view = ctx_.job(job_);
    for (auto it = ready_.ordered().begin(); it != ready_.ordered().end();) {
      const GroupId g = it->second;
      ++it;  // launching the group's last task erases it from the ordered set
      const Resources& demand = view.demand(g.stage);
      while (ready_.count(g) > 0 && pool_.Launch(ctx_, ready_.Front(g), demand).valid()) ready_.Pop(g);
    }
  }
  Rescue();
}

void ExecutorManager::Rescue() {
  if (outstanding_ > 0 || ready_.empty()) return;
  const JobView view = ctx_.job(job_);
  for (const auto& [key, g] : ready_.ordered()) {
    const Resources& demand = view.demand(g.stage);
    if (!pool_.Holds(demand)) {
      Request(demand, 1, /*exact=*/true);
      return;
    }
  }
}

}  // namespace weft::policy::baseline
