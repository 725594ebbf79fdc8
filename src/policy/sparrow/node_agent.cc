#include "policy/sparrow/node_agent.h"

#include <algorithm>

namespace weft::policy::sparrow {

SparrowNode::SparrowNode(Context& ctx, MachineId machine, const Config& config)
    : NodeAgent(ctx, machine), config_(config), queue_(config.queue) {
  const int64_t cores = ctx_.cluster().capacity(machine).micro(kCpu) / kMicroUnits;
  slots_ = config.slots > 0 ? config.slots : static_cast<uint32_t>(std::max<int64_t>(1, cores));
}

int64_t SparrowNode::Load() const {
  return static_cast<int64_t>(queue_.size() + requests_.size() + ctx_.cluster().running(machine_));
}

void SparrowNode::OnMessage(const Address& from, const Message& m) {
  switch (m.type) {
    case kProbe:
      ctx_.Send(from, Message{.type = kProbeReply, .task = m.task, .a = m.a, .b = Load()});
      return;
    case kEnqueue:
    case kReserve: {
      const JobView job = ctx_.job(m.task.job);
      queue_.Push(QueueEntry{m.task, from.index, m.type == kReserve}, job.priority(), job.user().value(),
                  job.weight());
      break;
    }
    case kTask:
      EndRequest(from.index, m.task);
      // Refused only if the task is no longer ready (e.g. resubmitted to
      // another replica after a failover and launched there): skip it.
      (void)ctx_.Launch(m.task, machine_);
      break;
    case kNoOp:
      EndRequest(from.index, m.task);
      break;
    case kCancel: {
      const uint32_t replica = from.index;
      queue_.RemoveIf([&](const QueueEntry& e) {
        return e.reservation && e.replica == replica && e.task.job == m.task.job && e.task.stage == m.task.stage;
      });
      return;
    }
    default:
      return;
  }
  Pump();
}

void SparrowNode::EndRequest(uint32_t replica, const TaskRef& reservation) {
  auto it = std::find_if(requests_.begin(), requests_.end(), [&](const Request& q) {
    return q.replica == replica && q.reservation.job == reservation.job && q.reservation.stage == reservation.stage;
  });
  if (it != requests_.end()) {
    committed_ -= it->demand;
    requests_.erase(it);
  }
}

void SparrowNode::OnTaskEnded(const TaskEnd& /*end*/) { Pump(); }

void SparrowNode::OnSchedulerDown(uint32_t replica) {
  queue_.RemoveIf([&](const QueueEntry& e) { return e.replica == replica; });
  std::erase_if(requests_, [&](const Request& q) { return q.replica == replica; });
  committed_ = Resources();
  for (const Request& q : requests_) committed_ += q.demand;
  Pump();
}

void SparrowNode::Pump() {
  const ClusterState& cluster = ctx_.cluster();
  while (!queue_.empty() && cluster.running(machine_) + requests_.size() < slots_) {
    const QueueEntry e = queue_.Front();
    const JobView job = ctx_.job(e.task.job);
    if (!e.reservation && job.finished()) {  // nothing left to run for it
      queue_.Pop();
      continue;
    }
    const Resources& demand = job.demand(e.task.stage);
    if (!(cluster.allocated(machine_) + committed_ + demand).FitsIn(cluster.capacity(machine_))) return;
    queue_.Pop();
    if (e.reservation) {
      requests_.push_back(Request{e.replica, e.task, demand});
      committed_ += demand;
      ctx_.Send(Address::Scheduler(e.replica), Message{.type = kGetTask, .task = e.task});
    } else {
      // Refused only if the task is no longer ready (launched elsewhere
      // after a failover or a re-placement): skip it.
      (void)ctx_.Launch(e.task, machine_);
    }
  }
}

}  // namespace weft::policy::sparrow
