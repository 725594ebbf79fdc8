#include "policy/ursa/node_agent.h"

#include <algorithm>

#include "policy/ursa/estimates.h"
#include "policy/ursa/messages.h"

namespace weft::policy::ursa {
namespace {

uint32_t Cores(const Context& ctx, MachineId m) {
  return static_cast<uint32_t>(std::max<int64_t>(1, ctx.cluster().capacity(m).micro(kCpu) / kMicroUnits));
}

// Queue keys: 0 for the machine's queues, container id + 1 for a container's.
ContainerId ContainerOf(uint64_t key) { return ContainerId(static_cast<uint32_t>(key - 1)); }

}  // namespace

UrsaNode::UrsaNode(Context& ctx, MachineId machine, const NodeConfig& config)
    : NodeAgent(ctx, machine), config_(config), cores_(Cores(ctx, machine)) {}

ResourceQueues& UrsaNode::QueuesOf(uint64_t key) {
  auto it = queues_.find(key);
  if (it != queues_.end()) return it->second;
  uint32_t cores = cores_;
  if (key != 0) {
    const ContainerInfo* c = ctx_.container(ContainerOf(key));
    cores = c != nullptr ? static_cast<uint32_t>(std::max<int64_t>(1, c->size.micro(kCpu) / kMicroUnits)) : 1;
  }
  return queues_.emplace(key, ResourceQueues({cores, 0, config_.disk_concurrency, config_.net_concurrency}))
      .first->second;
}

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
  auto in = container_of_.find(task);
  const uint64_t key = in != container_of_.end() ? in->second : 0;
  QueuesOf(key).Push(QueuedMonotask{.task = task, .phase = phase, .resource = r, .job_rank = job_rank,
                                    .input_size = InputMb(job, task, work)});
  Pump(key, r);
}

void UrsaNode::Pump(uint64_t key, Resource r) {
  ResourceQueues& queues = QueuesOf(key);
  while (auto m = queues.PopStartable(r)) {
    if (!ctx_.StartPhase(m->task).ok()) {  // the task is gone: free the slot
      queues.Finished(r);
      continue;
    }
    const std::span<const Phase> phases = ctx_.job(m->task.job).Phases(m->task.stage);
    const double work = m->phase < phases.size() ? phases[m->phase].work : 0;
    if (r != kCpu && BusyCount(r) == 1) rates_[r].busy_since = ctx_.Now();
    running_[m->task] = Running{r, m->phase, ctx_.Now(), work, key};
  }
}

uint32_t UrsaNode::BusyCount(Resource r) const {
  uint32_t n = 0;
  for (const auto& [key, q] : queues_) n += q.running(r);
  return n;
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
  QueuesOf(run.key).Finished(run.resource);
  RateBook& b = rates_[run.resource];
  b.work += run.work;
  if (run.resource == kCpu) {
    b.time_us += ctx_.Now() - run.start_us;
  } else if (BusyCount(run.resource) == 0) {
    b.time_us += ctx_.Now() - b.busy_since;
  } else {  // still busy: count up to now and go on from here
    b.time_us += ctx_.Now() - b.busy_since;
    b.busy_since = ctx_.Now();
  }
  const Message done{.type = kMonotaskDone, .task = task, .a = phase, .b = run.resource, .x = Rate(run.resource)};
  ctx_.Send(Address::Scheduler(0), done);
  ctx_.Send(Address::JobManager(task.job), done);
  Pump(run.key, run.resource);
}

void UrsaNode::OnTaskEnded(const TaskEnd& end) {
  auto in = container_of_.find(end.task);
  const uint64_t key = in != container_of_.end() ? in->second : 0;
  if (in != container_of_.end()) container_of_.erase(in);
  QueuesOf(key).RemoveTask(end.task);
  auto it = running_.find(end.task);
  if (it != running_.end()) {  // killed in the middle of a monotask
    const Resource r = it->second.resource;
    running_.erase(it);
    QueuesOf(key).Finished(r);
    if (r != kCpu && BusyCount(r) == 0) rates_[r].time_us += ctx_.Now() - rates_[r].busy_since;
    Pump(key, r);
  }
  // A container's queues go with its last task (containers come and go).
  if (key != 0 && ctx_.container(ContainerOf(key)) == nullptr) queues_.erase(key);
  ctx_.Send(Address::Scheduler(0), Message{.type = kTaskGone, .task = end.task});
}

void UrsaNode::OnMessage(const Address& /*from*/, const Message& m) {
  if (m.type == kRank) ranks_[m.task.job.value()] = m.x;
  if (m.type == kInContainer) container_of_[m.task] = static_cast<uint64_t>(m.a) + 1;
}

}  // namespace weft::policy::ursa
