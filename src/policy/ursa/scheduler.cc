#include "policy/ursa/scheduler.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>

#include "policy/common/packing.h"
#include "policy/ursa/admission.h"
#include "policy/ursa/estimates.h"
#include "policy/ursa/messages.h"

namespace weft::policy::ursa {
namespace {

constexpr uint64_t kBatchTag = 1;
constexpr Resource kTimed[] = {kCpu, kDisk, kNet};
// Algorithm 1's "large number": above any mean F (at most 4) plus any order
// bonus a run produces.
constexpr double kStageBonus = 1e12;

}  // namespace

UrsaScheduler::UrsaScheduler(Context& ctx, const SchedulerConfig& config)
    : ClusterScheduler(ctx),
      config_(config),
      ept_s_(config.ept_factor * static_cast<double>(config.interval_us) / kUsPerSecond) {
  const ClusterState& cluster = ctx_.cluster();
  workers_.resize(cluster.size());
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    const Resources& cap = cluster.capacity(MachineId(m));
    for (Resource r : kTimed) workers_[m].rate[r] = r == kCpu ? std::max(1.0, std::floor(cap.units(kCpu))) : cap.units(r);
  }
}

void UrsaScheduler::OnJobArrived(JobId job) { (void)StateOf(job); }

UrsaScheduler::JobState* UrsaScheduler::StateOf(JobId job) {
  auto it = jobs_.find(job.value());
  if (it != jobs_.end()) return &it->second;
  // A job manager's first messages may come before the job's arrival is
  // heard here; a finished job's late messages create nothing.
  if (ctx_.job(job).finished()) return nullptr;
  JobState& js = jobs_[job.value()];
  // Submission order: arrival, then id.
  const auto later = [&](JobId other) {
    const TimeUs a = ctx_.job(other).arrival(), b = ctx_.job(job).arrival();
    return a != b ? a > b : other.value() > job.value();
  };
  waiting_.insert(std::find_if(waiting_.begin(), waiting_.end(), later), job);
  return &js;
}

void UrsaScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  auto it = jobs_.find(job.value());
  if (it == jobs_.end()) return;
  if (it->second.admitted) {
    reserved_gb_ -= it->second.estimate_gb;
    --admitted_;
  }
  std::erase(waiting_, job);
  jobs_.erase(it);
  TryAdmit();
}

void UrsaScheduler::TryAdmit() {
  const double cluster_gb = ctx_.cluster().cluster().total_capacity().units(kMem);
  while (!waiting_.empty()) {
    JobState& js = jobs_[waiting_.front().value()];
    if (!js.estimated || !Admits(js.estimate_gb, reserved_gb_, cluster_gb, admitted_)) break;
    js.admitted = true;
    reserved_gb_ += js.estimate_gb;
    ++admitted_;
    waiting_.pop_front();
  }
  EnsureTimer();
}

void UrsaScheduler::OnMachineDown(MachineId machine) {
  // Its tasks come back ready through their managers; its load is gone.
  std::erase_if(placed_, [&](const auto& p) { return p.second.machine == machine; });
  const MonotaskWork rate = workers_[machine.value()].rate;
  workers_[machine.value()] = Worker{.rate = rate};
}

void UrsaScheduler::Forget(const TaskRef& t) {
  auto it = placed_.find(t);
  if (it == placed_.end()) return;
  Worker& w = workers_[it->second.machine.value()];
  for (Resource r : kTimed) w.assigned[r] = std::max(0.0, w.assigned[r] - it->second.queued[r]);
  w.peak_held -= it->second.peak;
  placed_.erase(it);
}

void UrsaScheduler::OnMessage(const Address& from, const Message& m) {
  switch (m.type) {
    case kEstimate: {
      JobState* state = StateOf(m.task.job);
      if (state == nullptr) return;
      JobState& js = *state;
      if (js.admitted) reserved_gb_ += m.x - js.estimate_gb;
      js.estimate_gb = m.x;
      js.estimated = true;
      TryAdmit();
      return;
    }
    case kReady: {
      JobState* js = StateOf(m.task.job);
      if (js == nullptr) return;
      const JobView job = ctx_.job(m.task.job);
      const double ready = js->estimate_gb;
      std::vector<Pending>& list = js->pending[m.task.stage];
      for (uint32_t i = m.task.index; i < static_cast<uint32_t>(m.a); ++i) {
        const TaskRef t{m.task.job, m.task.stage, i};
        const std::vector<Phase> monotasks = TaskMonotasks(job, t);
        // Inc_mem: the task's share of its job's estimate, by input.
        const double count = std::max<double>(1, static_cast<double>(m.a - m.task.index));
        TaskLoad load = LoadOf(job, t, WorkOf(monotasks), ready / count);
        if (!monotasks.empty() && !monotasks.front().profiled) {
          load.first[monotasks.front().resource] = monotasks.front().work;
        }
        list.push_back(Pending{i, load});
      }
      EnsureTimer();
      return;
    }
    case kRemaining: {
      JobState* js = StateOf(m.task.job);
      if (js == nullptr || m.list.size() != 3) return;
      for (int k = 0; k < 3; ++k) js->remaining[kTimed[k]] = static_cast<double>(m.list[k]) / kListScale;
      return;
    }
    case kMonotaskDone: {
      const uint32_t machine = from.index;
      const Resource r = static_cast<Resource>(m.b);
      if (machine >= workers_.size() || r < 0 || r >= kNumResources) return;
      if (m.x > 0) workers_[machine].rate[r] = m.x;
      auto it = placed_.find(m.task);
      if (it == placed_.end() || it->second.machine.value() != machine) return;
      const std::span<const Phase> phases = ctx_.job(m.task.job).Phases(m.task.stage);
      if (static_cast<size_t>(m.a) >= phases.size()) return;
      Placed& p = it->second;
      const double work = std::min(phases[m.a].work, p.left[r]);
      p.left[r] -= work;
      const double dequeued = std::min(work, p.queued[r]);
      p.queued[r] -= dequeued;
      workers_[machine].assigned[r] = std::max(0.0, workers_[machine].assigned[r] - dequeued);
      // The next monotask's input exists now: it enters its queue.
      if (static_cast<size_t>(m.a) + 1 < phases.size() && !phases[m.a + 1].profiled) {
        const Phase& next = phases[m.a + 1];
        const double enters = std::min(next.work, std::max(0.0, p.left[next.resource] - p.queued[next.resource]));
        p.queued[next.resource] += enters;
        workers_[machine].assigned[next.resource] += enters;
      }
      return;
    }
    case kTaskGone: {
      auto it = placed_.find(m.task);
      if (it != placed_.end() && it->second.machine.value() == from.index) Forget(m.task);
      EnsureTimer();
      return;
    }
    default:
      return;
  }
}

bool UrsaScheduler::HasPending() const {
  for (const auto& [id, js] : jobs_) {
    if (!js.admitted) continue;
    for (const auto& [stage, list] : js.pending) {
      if (!list.empty()) return true;
    }
  }
  return false;
}

void UrsaScheduler::EnsureTimer() {
  if (timer_armed_ || !HasPending()) return;
  ctx_.SetTimer(config_.interval_us, kBatchTag);
  timer_armed_ = true;
}

void UrsaScheduler::OnTimer(uint64_t tag) {
  if (tag != kBatchTag) return;
  timer_armed_ = false;
  if (config_.placement == PlacementKind::kUrsa) {
    BatchUrsa();
  } else {
    BatchPeak();
  }
  EnsureTimer();
}

std::vector<WorkerSnapshot> UrsaScheduler::Snapshot() const {
  const ClusterState& cluster = ctx_.cluster();
  std::vector<WorkerSnapshot> out(workers_.size());
  for (uint32_t m = 0; m < workers_.size(); ++m) {
    const MachineId id(m);
    WorkerSnapshot& s = out[m];
    s.up = cluster.up(id);
    s.rate = workers_[m].rate;
    for (Resource r : kTimed) s.apt[r] = s.rate[r] > 0 ? workers_[m].assigned[r] / s.rate[r] : 0;
    const double idle = cluster.capacity(id).units(kCpu) - cluster.used(id).units(kCpu);
    s.idle_cores = idle >= 1 ? static_cast<uint32_t>(idle) : 0;
    s.mem_capacity_gb = cluster.capacity(id).units(kMem);
    s.capacity = cluster.capacity(id);
    s.free = cluster.free(id);
  }
  return out;
}

double UrsaScheduler::Rank(JobId job) const {
  if (config_.order == JobOrder::kEjf) return static_cast<double>(ctx_.job(job).arrival()) / kUsPerSecond;
  // R and L in cluster-seconds (job_order.h).
  const Resources& total = ctx_.cluster().cluster().total_capacity();
  MonotaskWork load{};
  for (const auto& [id, js] : jobs_) {
    if (!js.admitted) continue;
    for (Resource r : kTimed) load[r] += js.remaining[r];
  }
  MonotaskWork mine = jobs_.at(job.value()).remaining;
  for (Resource r : kTimed) {
    const double rate = total.units(r);
    load[r] = rate > 0 ? load[r] / rate : 0;
    mine[r] = rate > 0 ? mine[r] / rate : 0;
  }
  return SrjfScore(mine, load);
}

double UrsaScheduler::Bonus(JobId job) const {
  const double elapsed = static_cast<double>(ctx_.Now() - ctx_.job(job).arrival()) / kUsPerSecond;
  return PlacementBonus(config_.order, config_.weight, elapsed, config_.order == JobOrder::kSrjf ? Rank(job) : 0);
}

bool UrsaScheduler::Place(const TaskRef& t, const TaskLoad& load, uint32_t worker) {
  const MachineId machine(worker);
  if (config_.order == JobOrder::kSrjf) {
    // Sent before the launch, so the node ranks the job's monotasks with it.
    ctx_.Send(Address::Node(machine), Message{.type = kRank, .task = t, .x = Rank(t.job)});
  }
  if (!ctx_.Launch(t, machine).ok()) return false;
  // A whole task's work is not queued work (placement.h): no APT.
  Placed p{.machine = machine, .left = load.whole ? MonotaskWork{} : load.work,
           .queued = load.whole ? MonotaskWork{} : load.first, .peak = ctx_.job(t.job).task_demand(t)};
  Worker& w = workers_[worker];
  for (Resource r : kTimed) w.assigned[r] += p.queued[r];
  w.peak_held += p.peak;
  placed_[t] = p;
  return true;
}

void UrsaScheduler::BatchUrsa() {
  std::vector<WorkerSnapshot> snapshot = Snapshot();
  // Algorithm 1 re-scores every stage after each placed plan. Placing only
  // fills workers, so a stage's score can only fall (its F terms shrink with
  // D, and a lost stage bonus never comes back): a score computed earlier in
  // the batch bounds the current one. So the stages wait in a max-heap by
  // their last score; the top is re-scored, and placed if it still beats the
  // next one's bound, else put back (lazy greedy: the same choices, far fewer
  // StageScore calls on large batches). Ties: the earlier job, then stage.
  struct Candidate {
    double score;
    JobId job;
    uint32_t stage;
    double bonus;
    bool operator<(const Candidate& o) const {
      if (score != o.score) return score < o.score;
      return std::tie(o.job, o.stage) < std::tie(job, stage);
    }
  };
  std::priority_queue<Candidate> heap;
  for (const auto& [id, js] : jobs_) {
    if (!js.admitted) continue;
    for (const auto& [stage, list] : js.pending) {
      if (!list.empty()) {
        heap.push(Candidate{std::numeric_limits<double>::infinity(), JobId(id), stage, Bonus(JobId(id))});
      }
    }
  }
  std::vector<TaskLoad> loads;
  while (!heap.empty()) {
    Candidate top = heap.top();
    heap.pop();
    std::vector<Pending>& list = jobs_[top.job.value()].pending[top.stage];
    loads.clear();
    for (const Pending& p : list) loads.push_back(p.load);
    StagePlan plan = StageScore(loads, snapshot, ept_s_, kStageBonus);
    if (plan.plan.empty()) continue;  // nothing of it fits for the rest of the batch
    top.score = plan.score + top.bonus;
    if (!heap.empty() && top < heap.top()) {
      heap.push(top);  // another stage may score higher now
      continue;
    }
    std::vector<bool> gone(list.size(), false);
    for (const auto& [i, w] : plan.plan) {
      const TaskRef t{top.job, top.stage, list[i].index};
      if (Place(t, list[i].load, w)) {
        Assign(list[i].load, snapshot[w]);
        gone[i] = true;
      } else if (ctx_.job(top.job).state(t) != TaskState::kReady) {
        gone[i] = true;  // no longer ready: it comes back through kReady if it must run
      }
    }
    size_t k = 0;
    std::erase_if(list, [&](const Pending&) { return gone[k++]; });
    // What the stage could not place now will not find room later in this
    // batch: the snapshot only fills up.
  }
}

void UrsaScheduler::BatchPeak() {
  const ClusterState& cluster = ctx_.cluster();
  std::vector<std::pair<double, std::pair<uint32_t, uint32_t>>> order;  // (rank, (job, stage))
  for (const auto& [id, js] : jobs_) {
    if (!js.admitted) continue;
    for (const auto& [stage, list] : js.pending) {
      if (!list.empty()) order.push_back({Rank(JobId(id)), {id, stage}});
    }
  }
  std::sort(order.begin(), order.end());
  for (const auto& [rank, key] : order) {
    const JobId job(key.first);
    std::vector<Pending>& list = jobs_[key.first].pending[key.second];
    std::vector<bool> gone(list.size(), false);
    for (size_t i = 0; i < list.size(); ++i) {
      const Resources& peak = ctx_.job(job).task_demand(TaskRef{job, key.second, list[i].index});
      std::optional<uint32_t> best;
      double best_score = -1;
      for (uint32_t m = 0; m < workers_.size(); ++m) {
        const MachineId id(m);
        const Resources& cap = cluster.capacity(id);
        const Resources free = cap - workers_[m].peak_held;
        if (!cluster.up(id) || !peak.FitsIn(free) || !cluster.Fits(id, list[i].load.reserve)) continue;
        double score = 0;
        if (config_.placement == PlacementKind::kTetris) {
          score = Alignment(peak, free, cap);
        } else {
          for (int r = 0; r < kNumResources; ++r) {
            const double c = cap.units(static_cast<Resource>(r));
            if (c > 0) score += free.units(static_cast<Resource>(r)) / c;
          }
        }
        if (score > best_score) {
          best = m;
          best_score = score;
        }
      }
      if (!best) continue;
      const TaskRef t{job, key.second, list[i].index};
      if (Place(t, list[i].load, *best) || ctx_.job(job).state(t) != TaskState::kReady) gone[i] = true;
    }
    size_t k = 0;
    std::erase_if(list, [&](const Pending&) { return gone[k++]; });
  }
}

}  // namespace weft::policy::ursa
