#include "policy/ursa/node_agent.h"

#include <algorithm>

#include "policy/ursa/estimates.h"
#include "policy/ursa/messages.h"

namespace weft::policy::ursa {
namespace {

uint32_t Cores(const Context& ctx, MachineId m) {
  return static_cast<uint32_t>(std::max<int64_t>(1, ctx.cluster().capacity(m).micro(kCpu) / kMicroUnits));
}

}  // namespace

UrsaNode::UrsaNode(Context& ctx, MachineId machine, const NodeConfig& config)
    : NodeAgent(ctx, machine),
      queues_({Cores(ctx, machine), 0, config.disk_concurrency, config.net_concurrency}),
      cores_(Cores(ctx, machine)) {}

void UrsaNode::OnPhaseReady(const TaskRef& task, uint32_t phase) {
  const JobView job = ctx_.job(task.job);
  const std::span<const Phase> phases = job.Phases(task.stage);
  // Phases hidden from the policy (non-clairvoyant use) still need a queue:
  // cpu is the safe guess, as a core is what every task takes.
  const Resource r = phase < phases.size() ? phases[phase].resource : kCpu;
  auto rank = ranks_.find(task.job.value());
  const double job_rank = rank != ranks_.end() ? rank->second
                                               : static_cast<double>(job.arrival()) / kUsPerSecond;
  const MonotaskWork work = WorkOf(TaskMonotasks(job, task));
  queues_.Push(QueuedMonotask{.task = task, .phase = phase, .resource = r, .job_rank = job_rank,
                              .input_size = InputMb(job, task, work)});
  Pump(r);
}

void UrsaNode::Pump(Resource r) {
  while (auto m = queues_.PopStartable(r)) {
    if (!ctx_.StartPhase(m->task).ok()) {  // the task is gone: free the slot
      queues_.Finished(r);
      continue;
    }
    const std::span<const Phase> phases = ctx_.job(m->task.job).Phases(m->task.stage);
    const double work = m->phase < phases.size() ? phases[m->phase].work : 0;
    if (r != kCpu && queues_.running(r) == 1) rates_[r].busy_since = ctx_.Now();
    running_[m->task] = Running{r, m->phase, ctx_.Now(), work};
  }
}

double UrsaNode::Rate(Resource r) const {
  const RateBook& b = rates_[r];
  if (b.time_us <= 0 || b.work <= 0) {  // nothing measured yet: the capacity
    return r == kCpu ? cores_ : ctx_.cluster().capacity(machine_).units(r);
  }
  const double per_s = b.work / (static_cast<double>(b.time_us) / kUsPerSecond);
  return r == kCpu ? per_s * cores_ : per_s;
}

void UrsaNode::OnPhaseEnded(const TaskRef& task, uint32_t phase) {
  auto it = running_.find(task);
  if (it == running_.end()) return;
  const Running run = it->second;
  running_.erase(it);
  queues_.Finished(run.resource);
  RateBook& b = rates_[run.resource];
  b.work += run.work;
  if (run.resource == kCpu) {
    b.time_us += ctx_.Now() - run.start_us;
  } else if (queues_.running(run.resource) == 0) {
    b.time_us += ctx_.Now() - b.busy_since;
  } else {  // still busy: count up to now and go on from here
    b.time_us += ctx_.Now() - b.busy_since;
    b.busy_since = ctx_.Now();
  }
  const Message done{.type = kMonotaskDone, .task = task, .a = phase, .b = run.resource, .x = Rate(run.resource)};
  ctx_.Send(Address::Scheduler(0), done);
  ctx_.Send(Address::JobManager(task.job), done);
  Pump(run.resource);
}

void UrsaNode::OnTaskEnded(const TaskEnd& end) {
  queues_.RemoveTask(end.task);
  auto it = running_.find(end.task);
  if (it != running_.end()) {  // killed in the middle of a monotask
    const Resource r = it->second.resource;
    running_.erase(it);
    queues_.Finished(r);
    if (r != kCpu && queues_.running(r) == 0) rates_[r].time_us += ctx_.Now() - rates_[r].busy_since;
    Pump(r);
  }
  ctx_.Send(Address::Scheduler(0), Message{.type = kTaskGone, .task = end.task});
}

void UrsaNode::OnMessage(const Address& /*from*/, const Message& m) {
  if (m.type == kRank) ranks_[m.task.job.value()] = m.x;
}

}  // namespace weft::policy::ursa
