// SparrowScheduler, late binding (§3.5) with constraints (§4.1) and
// proactive cancellation: reservations, task requests, hand-out and no-ops.
#include <algorithm>
#include <optional>

#include "policy/sparrow/sampler.h"
#include "policy/sparrow/scheduler.h"

namespace weft::policy::sparrow {

namespace {
uint64_t NodeTask(MachineId m, uint32_t task) { return (uint64_t{m.value()} << 32) | task; }
}  // namespace

void SparrowScheduler::AddLate(const GroupId& g, const std::vector<uint32_t>& tasks, bool constrained) {
  LateBatch& b = late_[g];
  b.constrained = b.constrained || constrained;
  if (b.constrained) {
    // A constrained batch keeps every task in pending_c (moving over any
    // unconstrained leftovers of the same stage).
    for (uint32_t i : b.pending) b.pending_c.insert(i);
    b.pending.clear();
    for (uint32_t i : tasks) {
      b.pending_c.insert(i);
      ReserveTask(g, b, i);
    }
    return;
  }
  b.pending.insert(b.pending.end(), tasks.begin(), tasks.end());
  std::vector<MachineId> nodes;
  SampleMachines(ctx_, ctx_.job(g.job).demand(g.stage), {}, ProbeCount(ctx_, config_.probe_ratio, tasks.size(), false),
                 nodes);
  for (MachineId m : nodes) Reserve(g, b, m, tasks.front());
}

void SparrowScheduler::Reserve(const GroupId& g, LateBatch& b, MachineId node, uint32_t task) {
  ++b.outstanding;
  ++b.at_node[node.value()];
  if (b.constrained) {
    ++b.at_node_task[NodeTask(node, task)];
    ++b.per_task[task];
  }
  ctx_.Send(Address::Node(node), Message{.type = kReserve, .task = TaskRef{g.job, g.stage, task}});
}

void SparrowScheduler::ReserveTask(const GroupId& g, LateBatch& b, uint32_t task) {
  const JobView job = ctx_.job(g.job);
  std::vector<MachineId> nodes;
  const uint64_t k = std::max<uint64_t>(1, ProbeCount(ctx_, config_.probe_ratio, 1, true));
  SampleMachines(ctx_, job.demand(g.stage), job.preferences(TaskRef{g.job, g.stage, task}), k, nodes);
  for (MachineId m : nodes) Reserve(g, b, m, task);
}

void SparrowScheduler::TopUp(const GroupId& g, LateBatch& b) {
  if (b.constrained) {
    std::vector<uint32_t> bare;
    for (uint32_t i : b.pending_c) {
      auto it = b.per_task.find(i);
      if (it == b.per_task.end() || it->second == 0) bare.push_back(i);
    }
    for (uint32_t i : bare) ReserveTask(g, b, i);
    return;
  }
  if (static_cast<int64_t>(b.pending.size()) <= b.outstanding) return;
  const uint64_t deficit = b.pending.size() - static_cast<uint64_t>(b.outstanding);
  std::vector<MachineId> nodes;
  SampleMachines(ctx_, ctx_.job(g.job).demand(g.stage), {}, ProbeCount(ctx_, config_.probe_ratio, deficit, false),
                 nodes);
  for (MachineId m : nodes) Reserve(g, b, m, b.pending.front());
}

bool SparrowScheduler::CanRun(const TaskRef& t, MachineId m) const {
  const JobView job = ctx_.job(t.job);
  return InCandidateSet(ctx_.cluster(), job.demand(t.stage), job.preferences(t), m);
}

void SparrowScheduler::OnGetTask(MachineId from, const TaskRef& reservation) {
  const GroupId g{reservation.job, reservation.stage};
  const Message noop{.type = kNoOp, .task = reservation};
  auto it = late_.find(g);
  if (it == late_.end()) return ctx_.Send(Address::Node(from), noop);
  LateBatch& b = it->second;
  auto node_it = b.at_node.find(from.value());
  // A reservation already written off (its machine was reported down and has
  // come back): answer it, but it no longer counts.
  if (node_it == b.at_node.end() || node_it->second == 0) return ctx_.Send(Address::Node(from), noop);
  if (--node_it->second == 0) b.at_node.erase(node_it);
  --b.outstanding;
  if (b.constrained) {
    auto nt = b.at_node_task.find(NodeTask(from, reservation.index));
    if (nt != b.at_node_task.end()) {
      if (--nt->second == 0) b.at_node_task.erase(nt);
      --b.per_task[reservation.index];
    }
  }
  std::optional<uint32_t> give;
  if (!b.constrained && !b.pending.empty()) {
    give = b.pending.front();
    b.pending.pop_front();
  } else if (b.constrained) {
    // §4.1: any unlaunched task that may run here, lowest index first.
    for (uint32_t i : b.pending_c) {
      if (CanRun(TaskRef{g.job, g.stage, i}, from)) {
        give = i;
        break;
      }
    }
    if (give) b.pending_c.erase(*give);
  }
  if (give) {
    const TaskRef t{g.job, g.stage, *give};
    placed_[Key(t)] = from;
    ctx_.Send(Address::Node(from), Message{.type = kTask, .task = t});
  } else {
    ctx_.Send(Address::Node(from), noop);
  }
  TopUp(g, b);
  MaybeFinish(it);
}

void SparrowScheduler::MaybeFinish(std::map<GroupId, LateBatch>::iterator it) {
  LateBatch& b = it->second;
  if (b.unlaunched() > 0) return;
  if (config_.cancellation && b.outstanding > 0) {
    std::vector<uint32_t> nodes;
    for (const auto& [node, count] : b.at_node) nodes.push_back(node);
    std::sort(nodes.begin(), nodes.end());
    const Message cancel{.type = kCancel, .task = TaskRef{it->first.job, it->first.stage, 0}};
    for (uint32_t node : nodes) ctx_.Send(Address::Node(MachineId(node)), cancel);
    b.outstanding = 0;
  }
  // Requests still in flight find no batch and get a no-op.
  if (b.outstanding == 0) late_.erase(it);
}

void SparrowScheduler::LateMachineDown(MachineId m) {
  for (auto& [g, b] : late_) {
    auto it = b.at_node.find(m.value());
    if (it == b.at_node.end()) continue;
    b.outstanding -= it->second;
    b.at_node.erase(it);
    if (b.constrained) {
      std::vector<uint64_t> keys;
      for (const auto& [key, count] : b.at_node_task) {
        if (key >> 32 == m.value()) keys.push_back(key);
      }
      for (uint64_t key : keys) {
        b.per_task[static_cast<uint32_t>(key)] -= b.at_node_task[key];
        b.at_node_task.erase(key);
      }
    }
    TopUp(g, b);
  }
}

}  // namespace weft::policy::sparrow
