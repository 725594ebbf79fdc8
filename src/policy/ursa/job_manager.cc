#include "policy/ursa/job_manager.h"

#include <algorithm>
#include <cmath>

#include "policy/ursa/admission.h"
#include "policy/ursa/estimates.h"
#include "policy/ursa/messages.h"

namespace weft::policy::ursa {
namespace {

// Key: a task of this job by stage and index.
uint64_t Key(const TaskRef& t) { return (static_cast<uint64_t>(t.stage) << 32) | t.index; }

}  // namespace

UrsaJobManager::UrsaJobManager(Context& ctx, JobId job, double m2i, Address scheduler)
    : JobManager(ctx, job), m2i_(m2i), scheduler_(scheduler) {}

void UrsaJobManager::OnStart() {
  const JobView job = ctx_.job(job_);
  for (uint32_t s = 0; s < job.num_stages(); ++s) {
    for (uint32_t i = 0; i < job.stage_tasks(s); ++i) {
      const MonotaskWork w = WorkOf(TaskMonotasks(job, TaskRef{job_, s, i}));
      for (int r = 0; r < kNumResources; ++r) remaining_[r] += w[r];
    }
  }
  SendRemaining();
}

void UrsaJobManager::SendRemaining() {
  Message m{.type = kRemaining, .task = TaskRef{job_, 0, 0}};
  for (Resource r : {kCpu, kDisk, kNet}) {
    m.list.push_back(static_cast<int64_t>(std::llround(std::max(0.0, remaining_[r]) * kListScale)));
  }
  ctx_.Send(scheduler_, std::move(m));
}

void UrsaJobManager::OnTasksReady(const TaskRange& tasks) {
  const JobView job = ctx_.job(job_);
  for (uint32_t i = tasks.begin; i < tasks.end; ++i) {
    const TaskRef t{job_, tasks.stage, i};
    entries_[Key(t)].push_back(static_cast<uint32_t>(outstanding_.size()));
    outstanding_.push_back(
        Outstanding{t, InputMb(job, t, WorkOf(TaskMonotasks(job, t))), job.task_demand(t).units(kMem)});
  }
  double ready_input = 0;
  for (const Outstanding& o : outstanding_) {
    if (o.live) ready_input += o.input_mb;
  }
  double estimate = 0;
  for (const Outstanding& o : outstanding_) {
    if (o.live) estimate += TaskMemoryGb(o.input_mb, ready_input, MemoryEstimateGb(job), m2i_, o.demand_gb);
  }
  ctx_.Send(scheduler_, Message{.type = kEstimate, .task = TaskRef{job_, 0, 0}, .x = estimate});
  ctx_.Send(scheduler_, Message{.type = kReady, .task = TaskRef{job_, tasks.stage, tasks.begin}, .a = tasks.end});
}

void UrsaJobManager::OnTaskEnded(const TaskEnd& end) {
  if (end.outcome != Outcome::kOk) return;  // it comes back ready, or the job failed
  Forget(end.task);
  const JobView job = ctx_.job(job_);
  if (job.has_phases(end.task.stage)) return;  // its monotasks were counted as they ended
  const MonotaskWork w = WorkOf(TaskMonotasks(job, end.task));
  for (int r = 0; r < kNumResources; ++r) remaining_[r] -= w[r];
  SendRemaining();
}

void UrsaJobManager::Forget(const TaskRef& t) {
  auto it = entries_.find(Key(t));
  if (it == entries_.end()) return;
  for (uint32_t i : it->second) outstanding_[i].live = false;
  dead_ += it->second.size();
  entries_.erase(it);
  if (dead_ * 2 <= outstanding_.size()) return;
  // Compact, keeping the order.
  std::erase_if(outstanding_, [](const Outstanding& o) { return !o.live; });
  dead_ = 0;
  entries_.clear();
  for (uint32_t i = 0; i < outstanding_.size(); ++i) entries_[Key(outstanding_[i].task)].push_back(i);
}

void UrsaJobManager::OnMessage(const Address& /*from*/, const Message& m) {
  if (m.type != kMonotaskDone) return;
  const std::span<const Phase> phases = ctx_.job(job_).Phases(m.task.stage);
  if (static_cast<size_t>(m.a) >= phases.size()) return;
  remaining_[phases[m.a].resource] -= phases[m.a].work;
  SendRemaining();
}

}  // namespace weft::policy::ursa
