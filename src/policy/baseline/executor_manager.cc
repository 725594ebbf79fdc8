// The executor policy's job manager: Spark's driver under static allocation.
// It asks for its executors once, keeps them for the job's life, and runs the
// job's tasks in them, FIFO by stage then index. The one exception, which
// keeps jobs from deadlocking on heterogeneous clusters (executor.h): a job
// whose executors have all been idle for idle_timeout while it has ready
// tasks none of them can hold gives them back and asks again where those
// tasks fit.
#include <algorithm>
#include <vector>

#include "policy/baseline/executor_roles.h"

namespace weft::policy::baseline {

ExecutorManager::ExecutorManager(Context& ctx, JobId job, const ExecutorConfig& config)
    : JobManager(ctx, job), config_(config), requests_(ctx, Address::Scheduler(0)) {}

void ExecutorManager::OnStart() {
  const JobView view = ctx_.job(job_);
  // All executors of a job are alike and grown to hold its largest task, as a
  // Spark user must size spark.executor.cores/memory (executor.h).
  executor_floor_ = config_.executor;
  for (uint32_t s = 0; s < view.num_stages(); ++s) executor_floor_ = ComponentMax(executor_floor_, view.demand(s));
  requests_.Request(executor_floor_, config_.executors, /*must_fit=*/Resources());
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
  requests_.Granted();
  pool_.Add(container);
  Fill();
}

void ExecutorManager::OnContainerLost(const ContainerInfo& container) {
  // Its tasks were killed with the machine and come back as ready; the
  // executor itself is replaced.
  pool_.Remove(container.id);
  requests_.Request(executor_floor_, 1, /*must_fit=*/Resources());
  WatchIdle();
}

void ExecutorManager::OnTimer(uint64_t tag) {
  // Disarmed since, or re-armed (WatchIdle runs after every change to the
  // ready tasks or the executors, so an armed timer still finds us idle).
  if (!idle_timer_armed_ || tag != idle_timer_tag_ || ready_.empty()) return;
  idle_timer_armed_ = false;
  GiveBack();
  WatchIdle();
}

void ExecutorManager::Fill() {
  if (!ready_.empty() && !pool_.empty()) {
    const JobView view = ctx_.job(job_);
    for (auto it = ready_.ordered().begin(); it != ready_.ordered().end();) {
      const GroupId g = it->second;
      ++it;  // launching the group's last task erases it from the ordered set
      const Resources& demand = view.demand(g.stage);
      while (ready_.count(g) > 0 && pool_.Launch(ctx_, ready_.Front(g), demand).valid()) ready_.Pop(g);
    }
  }
  Rescue();
  WatchIdle();
}

void ExecutorManager::Rescue() {
  if (requests_.outstanding() > 0 || ready_.empty()) return;
  const JobView view = ctx_.job(job_);
  for (const auto& [key, g] : ready_.ordered()) {
    const Resources& demand = view.demand(g.stage);
    if (!pool_.Holds(demand, ctx_.cluster().unfitted())) {
      requests_.Request(demand, 1, /*must_fit=*/demand);  // exact: never cut down
      return;
    }
  }
}

void ExecutorManager::WatchIdle() {
  // Idle: we hold executors, nothing of ours runs in any of them, yet tasks
  // wait, so none of them fits any of those executors even empty (Fill just
  // ran). Executors already gone with their machine (OnContainerLost is on
  // its way) do not count: there is nothing to give back, and a zero
  // idle_timeout would otherwise fire again and again at the same instant.
  bool idle = !ready_.empty();
  bool holds = false;
  for (const ContainerPool::Entry& e : pool_.entries()) {
    idle = idle && e.tasks == 0;
    holds = holds || ctx_.container(e.id) != nullptr;
  }
  if (!idle || !holds) {
    idle_timer_armed_ = false;
    return;
  }
  if (idle_timer_armed_) return;
  idle_timer_armed_ = true;
  ctx_.SetTimer(config_.idle_timeout_us, ++idle_timer_tag_);
}

void ExecutorManager::GiveBack() {
  // The replacing request goes first: the scheduler hears it before the
  // releases (same latency, sent earlier), so the room they free is never
  // granted to us again under the old, unrestricted requests.
  const Resources& waiting = ctx_.job(job_).demand(ready_.ordered().begin()->second.stage);
  requests_.Request(executor_floor_, config_.executors, /*must_fit=*/waiting, /*replace=*/true);
  std::vector<ContainerId> idle;
  for (const ContainerPool::Entry& e : pool_.entries()) {
    // A container whose machine failed is gone already; OnContainerLost
    // will remove it.
    if (e.tasks == 0 && ctx_.container(e.id) != nullptr) idle.push_back(e.id);
  }
  for (ContainerId id : idle) {
    if (ctx_.ReleaseContainer(id).ok()) pool_.Remove(id);
  }
}

}  // namespace weft::policy::baseline
