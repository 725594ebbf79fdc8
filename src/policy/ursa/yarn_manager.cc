#include "policy/ursa/yarn_manager.h"

#include <algorithm>
#include <cmath>

#include "policy/ursa/messages.h"

namespace weft::policy::ursa {
namespace {

// RunsMonotasks: the stage's tasks run as resource phases (monotasks), so a
// task reserves only its memory between them. Profiled phases are not
// monotasks: the platform reserves such a task's demand (which covers every
// phase), as it does a whole task's.
bool RunsMonotasks(const JobView& job, uint32_t stage) {
  if (!job.has_phases(stage)) return false;
  const std::span<const Phase> phases = job.Phases(stage);
  return phases.empty() || !phases.front().profiled;
}

}  // namespace

UrsaYarnManager::UrsaYarnManager(Context& ctx, JobId job, const YarnConfig& config)
    : JobManager(ctx, job), config_(config), requester_(ctx, Address::Scheduler(0)) {}

void UrsaYarnManager::OnStart() {
  const JobView job = ctx_.job(job_);
  floor_.set_micro(kCpu, std::llround(config_.executor_cpu * kMicroUnits));
  floor_.set_micro(kMem, std::llround(config_.executor_mem * kMicroUnits));
  for (uint32_t s = 0; s < job.num_stages(); ++s) {
    // The stage's demand covers each of its tasks' own (per-task `demands`
    // may differ), so every task of the job fits an executor of this size.
    Resources reserve = job.demand(s);
    if (RunsMonotasks(job, s)) {
      reserve = Resources();
      reserve.set_micro(kMem, job.demand(s).micro(kMem));
    }
    for (int r = 0; r < kNumResources; ++r) {
      const Resource res = static_cast<Resource>(r);
      floor_.set_micro(res, std::max(floor_.micro(res), reserve.micro(res)));
    }
  }
  requester_.Request(floor_, config_.executors, Resources());
}

Resources UrsaYarnManager::Reserve(const TaskRef& t) const {
  const JobView job = ctx_.job(job_);
  if (!RunsMonotasks(job, t.stage)) return job.task_demand(t);
  Resources mem;
  mem.set_micro(kMem, job.task_demand(t).micro(kMem));
  return mem;
}

void UrsaYarnManager::OnTasksReady(const TaskRange& tasks) {
  for (uint32_t i = tasks.begin; i < tasks.end; ++i) ready_.push_back(TaskRef{job_, tasks.stage, i});
  Fill();
}

void UrsaYarnManager::Fill() {
  while (!ready_.empty()) {
    const TaskRef t = ready_.front();
    if (ctx_.job(job_).state(t) != TaskState::kReady) {  // taken back by the platform
      ready_.pop_front();
      continue;
    }
    const Resources reserve = Reserve(t);
    const ContainerId c = pool_.FirstFit(reserve, ctx_);
    if (!c.valid()) return;  // FIFO within the job, as Spark's task set
    ctx_.Send(Address::Node(pool_.Find(c)->machine), Message{.type = kInContainer, .task = t, .a = c.value()});
    if (!pool_.Launch(ctx_, t, reserve).valid()) return;
    ready_.pop_front();
  }
}

void UrsaYarnManager::OnTaskEnded(const TaskEnd& end) {
  if (end.container.valid()) pool_.Ended(end.container, Reserve(end.task));
  Fill();
}

void UrsaYarnManager::OnContainerGranted(const ContainerInfo& container) {
  requester_.Granted();
  pool_.Add(container);
  Fill();
}

void UrsaYarnManager::OnContainerLost(const ContainerInfo& container) {
  pool_.Remove(container.id);
  requester_.Request(floor_, 1, Resources());
}

}  // namespace weft::policy::ursa
