// The parts of SparrowScheduler every variant shares (submitting a stage's
// ready tasks, bookkeeping of placed tasks, machine failures) and early
// binding: random placement, per-task and batch sampling (§3.1-3.3).
#include "policy/sparrow/scheduler.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "policy/sparrow/sampler.h"

namespace weft::policy::sparrow {

namespace {
constexpr int64_t kAwaiting = -1;
constexpr int64_t kDead = std::numeric_limits<int64_t>::max();
}  // namespace

void SparrowScheduler::OnTasksReady(const TaskRange& r) {
  std::vector<uint32_t> tasks(r.size());
  for (uint32_t i = 0; i < r.size(); ++i) tasks[i] = r.begin + i;
  Submit(GroupId{r.job, r.stage}, std::move(tasks));
}

void SparrowScheduler::Submit(const GroupId& g, std::vector<uint32_t> tasks) {
  if (tasks.empty()) return;
  const JobView job = ctx_.job(g.job);
  const Resources& demand = job.demand(g.stage);
  bool constrained = false;
  for (uint32_t i : tasks) constrained = constrained || !job.preferences(TaskRef{g.job, g.stage, i}).empty();
  switch (config_.variant) {
    case Variant::kRandom: {
      std::vector<MachineId> one;
      for (uint32_t i : tasks) {
        const TaskRef t{g.job, g.stage, i};
        one.clear();
        SampleMachines(ctx_, demand, job.preferences(t), 1, one);
        if (one.empty()) {
          parked_[g].push_back(i);
        } else {
          Enqueue(t, one[0]);
        }
      }
      return;
    }
    case Variant::kBatch:
      if (!constrained) {
        const uint64_t k = ProbeCount(ctx_, config_.probe_ratio, tasks.size(), false);
        Probe(g, std::move(tasks), k, {});
        return;
      }
      [[fallthrough]];  // task-level constraints: per-task sampling (§4.1)
    case Variant::kPerTask:
      for (uint32_t i : tasks) {
        const uint64_t k = std::max<uint64_t>(1, ProbeCount(ctx_, config_.probe_ratio, 1, true));
        Probe(g, {i}, k, job.preferences(TaskRef{g.job, g.stage, i}));
      }
      return;
    case Variant::kLateBinding:
      AddLate(g, tasks, constrained);
      return;
  }
}

void SparrowScheduler::Probe(const GroupId& g, std::vector<uint32_t> tasks, uint64_t k,
                             std::span<const MachineId> candidates) {
  ProbeBatch b{.group = g, .tasks = std::move(tasks)};
  SampleMachines(ctx_, ctx_.job(g.job).demand(g.stage), candidates, k, b.probed);
  if (b.probed.empty()) {  // no machine can hold the tasks now
    auto& parked = parked_[g];
    parked.insert(parked.end(), b.tasks.begin(), b.tasks.end());
    return;
  }
  b.load.assign(b.probed.size(), kAwaiting);
  const uint64_t id = next_probe_++;
  const TaskRef first{g.job, g.stage, b.tasks.front()};
  for (MachineId m : b.probed) {
    ctx_.Send(Address::Node(m), Message{.type = kProbe, .task = first, .a = static_cast<int64_t>(id)});
  }
  probes_.emplace(id, std::move(b));
}

void SparrowScheduler::OnProbeReply(MachineId from, uint64_t id, int64_t load) {
  auto it = probes_.find(id);
  if (it == probes_.end()) return;
  ProbeBatch& b = it->second;
  for (size_t i = 0; i < b.probed.size(); ++i) {
    if (b.probed[i] == from && b.load[i] == kAwaiting) {
      b.load[i] = load;
      if (++b.answered == b.probed.size()) Resolve(id);
      return;
    }
  }
}

// Resolve places a batch once every probe is answered: each task in turn on
// the reply with the least load, counting the tasks already put there (ties:
// probe order, i.e. the sampling order).
void SparrowScheduler::Resolve(uint64_t id) {
  ProbeBatch b = std::move(probes_.at(id));
  probes_.erase(id);
  using Item = std::pair<int64_t, size_t>;  // (load, probe index)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (size_t i = 0; i < b.probed.size(); ++i) {
    if (b.load[i] != kDead) heap.emplace(b.load[i], i);
  }
  if (heap.empty()) return Submit(b.group, std::move(b.tasks));  // every probed node died: sample again
  for (uint32_t i : b.tasks) {
    auto [load, p] = heap.top();
    heap.pop();
    Enqueue(TaskRef{b.group.job, b.group.stage, i}, b.probed[p]);
    heap.emplace(load + 1, p);
  }
}

void SparrowScheduler::Enqueue(const TaskRef& t, MachineId m) {
  placed_[Key(t)] = m;
  ctx_.Send(Address::Node(m), Message{.type = kEnqueue, .task = t});
}

void SparrowScheduler::OnMachineUp(MachineId /*m*/) {
  std::map<GroupId, std::vector<uint32_t>> parked;
  parked.swap(parked_);
  for (auto& [g, tasks] : parked) {
    if (!ctx_.job(g.job).finished()) Submit(g, std::move(tasks));
  }
  // Late binding keeps unreserved tasks in its batches: reserve for them now.
  for (auto& [g, b] : late_) TopUp(g, b);
}

void SparrowScheduler::OnTaskEnded(const TaskEnd& e) { placed_.erase(Key(e.task)); }

void SparrowScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  late_.erase(late_.lower_bound(GroupId{job, 0}), late_.lower_bound(GroupId{JobId(job.value() + 1), 0}));
  parked_.erase(parked_.lower_bound(GroupId{job, 0}), parked_.lower_bound(GroupId{JobId(job.value() + 1), 0}));
  std::vector<uint64_t> gone;
  for (const auto& [id, b] : probes_) {
    if (b.group.job == job) gone.push_back(id);
  }
  for (uint64_t id : gone) probes_.erase(id);
}

void SparrowScheduler::OnMessage(const Address& from, const Message& m) {
  if (from.kind != RoleKind::kNode) return;
  const MachineId node(from.index);
  if (m.type == kProbeReply) OnProbeReply(node, static_cast<uint64_t>(m.a), m.b);
  if (m.type == kGetTask) OnGetTask(node, m.task);
}

// A machine died: probes to it will never be answered, reservations on it
// never served, and tasks queued on or handed to it and still ready must be
// placed again. (Sorted wherever a hash map is walked, for determinism.)
void SparrowScheduler::OnMachineDown(MachineId m) {
  std::vector<uint64_t> ids;
  for (auto& [id, b] : probes_) {
    if (std::find(b.probed.begin(), b.probed.end(), m) != b.probed.end()) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  for (uint64_t id : ids) {
    ProbeBatch& b = probes_.at(id);
    for (size_t i = 0; i < b.probed.size(); ++i) {
      if (b.probed[i] == m && b.load[i] == kAwaiting) {
        b.load[i] = kDead;
        ++b.answered;
      }
    }
    if (b.answered == b.probed.size()) Resolve(id);
  }
  LateMachineDown(m);
  std::vector<TaskKey> lost;
  for (const auto& [key, node] : placed_) {
    if (node == m) lost.push_back(key);
  }
  std::sort(lost.begin(), lost.end());
  std::map<GroupId, std::vector<uint32_t>> again;
  for (const TaskKey& key : lost) {
    placed_.erase(key);
    const TaskRef t{JobId(std::get<0>(key)), std::get<1>(key), std::get<2>(key)};
    const JobView job = ctx_.job(t.job);
    if (!job.finished() && job.state(t) == TaskState::kReady) again[GroupId{t.job, t.stage}].push_back(t.index);
  }
  for (auto& [g, tasks] : again) Submit(g, std::move(tasks));
}

}  // namespace weft::policy::sparrow
