#include "policy/cobra/manager.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "policy/common/container_protocol.h"

namespace weft::policy::cobra {
namespace {

// Timer tags of a job manager; kIdleTag's upper bits carry a container id.
constexpr uint64_t kPeriodTag = 1;   // a period ends (Af)
constexpr uint64_t kSampleTag = 2;   // sample utilization within the period
constexpr uint64_t kWaitTag = 3;     // some task's wait reached a threshold
constexpr uint64_t kBacklogTag = 4;  // Spark: tasks have waited a backlog timeout
constexpr uint64_t kIdleTag = 5;     // Spark: a container idled executorIdleTimeout
constexpr int kSamplesPerPeriod = 10;

// AtLeastFree: `free` is at least `share` of `size` in every resource the
// container has (Pdelay's n.free >= 1 - δ, normalized by the container).
bool AtLeastFree(const Resources& free, const Resources& size, double share) {
  for (int i = 0; i < kNumResources; ++i) {
    const auto r = static_cast<Resource>(i);
    if (size.micro(r) > 0 && static_cast<double>(free.micro(r)) < share * static_cast<double>(size.micro(r)) - 0.5) {
      return false;
    }
  }
  return true;
}

int64_t Ceil(double x) { return static_cast<int64_t>(std::ceil(x - 1e-9)); }

}  // namespace

CobraManager::CobraManager(Context& ctx, JobId job, const CobraConfig& config)
    : JobManager(ctx, job), config_(config), desire_(config.initial_desire) {}

void CobraManager::OnStart() {
  if (config_.desire_mode == DesireMode::kAf) {
    // Periods are aligned on a global grid (section III: period q is
    // [L·q, L·(q+1))), so the job scheduler hears every job's desire at the
    // same instants. The first period of a job is partial.
    const TimeUs now = ctx_.Now();
    const TimeUs next = (now / config_.period_us + 1) * config_.period_us;
    ctx_.SetTimer(next - now, kPeriodTag);
    ctx_.SetTimer(std::max<TimeUs>(1, config_.period_us / kSamplesPerPeriod), kSampleTag);
    meter_.Restart(now);
  }
  SendDesire(Keep());
}

void CobraManager::OnTasksReady(const TaskRange& tasks) {
  SampleBeforeFill();
  ready_.Add(tasks, OrderKey{tasks.stage, 0, 0, 0});
  const JobView view = ctx_.job(job_);
  if (index_.Index(tasks, view, ctx_.cluster())) {
    // Per-task waits start now (the paper's t.wait accumulates from here);
    // timers bring the job back when they unlock a level even if no
    // container changes then.
    const TimeUs now = ctx_.Now();
    for (uint32_t i = tasks.begin; i < tasks.end; ++i) {
      waits_[Key(TaskRef{job_, tasks.stage, i})].Start(now);
    }
    const auto [node, rack] = Thresholds(TaskRef{job_, tasks.stage, tasks.begin});
    ctx_.SetTimer(node, kWaitTag);
    ctx_.SetTimer(node + rack, kWaitTag);
  }
  Fill();
}

void CobraManager::OnTaskEnded(const TaskEnd& end) {
  SampleBeforeFill();
  if (end.container.valid() && pool_.Find(end.container) != nullptr) {
    if (running_ > 0) --running_;
    pool_.Ended(end.container, ctx_.job(job_).demand(end.task.stage));
    const IndexedContainerPool::Entry* e = pool_.Find(end.container);
    // Disposable containers (Default) go back with their task; draining
    // ones when they empty.
    if (e->tasks == 0 && (!config_.reuse || draining_.contains(end.container.value()))) Release(end.container);
  }
  Fill();
}

void CobraManager::OnContainerGranted(const ContainerInfo& container) {
  SampleBeforeFill();
  pool_.Add(container);
  Fill();
}

void CobraManager::OnContainerLost(const ContainerInfo& container) {
  SampleBeforeFill();
  // Its tasks were killed with the machine and come back as ready.
  if (const auto* e = pool_.Find(container.id)) running_ = std::max<int64_t>(0, running_ - e->tasks);
  pool_.Remove(container.id);
  draining_.erase(container.id.value());
  idle_since_.erase(container.id.value());
  Fill();
}

void CobraManager::OnMessage(const Address& from, const Message& message) {
  if (from.kind != RoleKind::kScheduler || message.type != kAllocation) return;
  // Spark does not answer the resource manager's allocation (YARN preempts
  // nothing by default); COBRA and Default give the excess back.
  if (config_.desire_mode == DesireMode::kSparkDynamic) return;
  allocation_ = message.a;
  Settle();
}

void CobraManager::OnTimer(uint64_t tag) {
  switch (tag & 0xff) {
    case kPeriodTag:
      Sample();
      EndPeriod();
      ctx_.SetTimer(config_.period_us, kPeriodTag);
      return;
    case kSampleTag:
      Sample();
      ctx_.SetTimer(std::max<TimeUs>(1, config_.period_us / kSamplesPerPeriod), kSampleTag);
      return;
    case kWaitTag:
      Fill();
      return;
    case kBacklogTag:
      SparkBacklog();
      return;
    case kIdleTag: {
      const ContainerId id(static_cast<uint32_t>(tag >> 8));
      auto it = idle_since_.find(id.value());
      if (it != idle_since_.end() && ctx_.Now() - it->second >= config_.idle_timeout_us) Release(id);
      Settle();
      return;
    }
    default:
      return;
  }
}

std::pair<TimeUs, TimeUs> CobraManager::Thresholds(const TaskRef& t) const {
  if (config_.placement == PlacementMode::kDelay) return {config_.node_wait_us, config_.rack_wait_us};
  // Pdelay: rack-local after τ·p, anywhere after 2τ·p, p the task's known
  // processing time (semi-clairvoyant: its stage is released).
  const auto p = static_cast<double>(ctx_.job(job_).EstimatedDuration(t));
  const auto step = static_cast<TimeUs>(config_.tau * p);
  return {step, step};
}

std::optional<TaskRef> CobraManager::Pick(const IndexedContainerPool::Entry& e, const Resources& free) {
  const JobView view = ctx_.job(job_);
  const TimeUs now = ctx_.Now();
  // Algorithm 2, lines 4-9: a node-local task (or one without preferences:
  // every container is local to it) first, over all waiting stages; then a
  // rack-local one that waited τ·p; then any that waited 2τ·p, into a
  // container still at least 1-δ free (Pdelay only).
  for (const auto& [key, g] : ready_.ordered()) {
    if (!view.demand(g.stage).FitsInExcept(free, ctx_.cluster().unfitted())) continue;
    if (!index_.Has(g)) return ready_.Front(g);
    if (auto t = index_.NodeLocal(g, e.machine, ready_)) return t;
    if (auto t = index_.WithoutPrefs(g, ready_)) return t;
  }
  const RackId rack = ctx_.cluster().rack(e.machine);
  auto allowed = [&](const TaskRef& t) {
    auto w = waits_.find(Key(t));
    if (w == waits_.end()) return LocalityLevel::kAny;
    const auto [node, rack_wait] = Thresholds(t);
    return w->second.Allowed(now, node, rack_wait);
  };
  for (const auto& [key, g] : ready_.ordered()) {
    if (!view.demand(g.stage).FitsInExcept(free, ctx_.cluster().unfitted())) continue;
    auto t = index_.RackLocal(g, rack, ready_);
    if (t && allowed(*t) >= LocalityLevel::kRack) return t;
  }
  if (config_.placement == PlacementMode::kPdelay && !AtLeastFree(free, e.size, 1 - config_.af.delta)) {
    return std::nullopt;
  }
  for (const auto& [key, g] : ready_.ordered()) {
    if (!view.demand(g.stage).FitsInExcept(free, ctx_.cluster().unfitted())) continue;
    const TaskRef t = ready_.Front(g);
    if (allowed(t) >= LocalityLevel::kAny) return t;
  }
  return std::nullopt;
}

void CobraManager::Fill() {
  const JobView view = ctx_.job(job_);
  // The containers to visit, in id order: only those where some waiting
  // stage's task fits (Pick finds nothing in the others) and, with
  // disposable containers, only idle ones. Launching fills the container
  // visited and removes waiting tasks, so it adds none: the list taken now
  // is the one to visit. With no task waiting there is nothing to place
  // (most calls, on a busy job).
  std::vector<ContainerId> ids;
  if (!ready_.empty()) {
    auto fits = [&](const Resources& free) {
      for (const auto& [key, g] : ready_.ordered()) {
        if (view.demand(g.stage).FitsInExcept(free, ctx_.cluster().unfitted())) return true;
      }
      return false;
    };
    for (ContainerId id : pool_.WithRoom(fits, !config_.reuse)) {
      if (!draining_.contains(id.value()) && ctx_.container(id) != nullptr) ids.push_back(id);
    }
  }
  // Pick sees a container only through its machine, size and free room, and
  // nothing else it reads changes until a task is placed: a container like
  // one Pick found nothing for since the last placement gets nothing either
  // (a job's containers crowd onto few machines, granted first fit).
  using Micros = std::array<int64_t, kNumResources>;
  absl::flat_hash_set<std::tuple<uint32_t, Micros, Micros>> found_nothing;
  for (ContainerId id : ids) {
    while (!ready_.empty()) {
      const IndexedContainerPool::Entry& e = *pool_.Find(id);
      // Default runs one task per container (disposable containers).
      if (!config_.reuse && e.tasks > 0) break;
      const Resources free = e.size - e.in_use;
      const auto like = std::make_tuple(e.machine.value(), e.size.micros(), free.micros());
      if (found_nothing.contains(like)) break;
      const auto t = Pick(e, free);
      if (!t) found_nothing.insert(like);
      if (!t || !pool_.LaunchIn(ctx_, *t, view.demand(t->stage), id)) break;
      found_nothing.clear();
      ready_.Remove(*t);
      waits_.erase(Key(*t));
      const GroupId g{t->job, t->stage};
      if (ready_.count(g) == 0) index_.Erase(g);
      ++running_;
      idle_since_.erase(id.value());
    }
  }
  if (!ready_.empty()) period_waited_ = true;
  Settle();
  Sample();
}

Resources CobraManager::Floor() const {
  // Grown to the first waiting stage only: a component-wise max over several
  // stages (one cpu-heavy, one memory-heavy) may fit no machine at all.
  return ComponentMax(config_.container, MustFit());
}

Resources CobraManager::MustFit() const {
  if (ready_.empty()) return Resources();
  return ctx_.job(job_).demand(ready_.ordered().begin()->second.stage);
}

int64_t CobraManager::Keep() const {
  int64_t keep = 0;
  switch (config_.desire_mode) {
    case DesireMode::kAf:
      keep = Ceil(desire_);
      break;
    case DesireMode::kPerTask:
      keep = static_cast<int64_t>(ready_.size()) + running_;
      break;
    case DesireMode::kSparkDynamic:
      keep = Ceil(desire_);
      break;
  }
  if (allocation_ >= 0) keep = std::min(keep, allocation_);
  return keep;
}

void CobraManager::Settle() {
  const TimeUs now = ctx_.Now();
  if (config_.desire_mode == DesireMode::kSparkDynamic) {
    // Spark lowers its target at once to what the waiting and running tasks
    // can use (maxNeeded); busy executors stay, idle ones time out below.
    if (!ready_.empty() && !backlog_armed_) {
      backlog_armed_ = true;
      ctx_.SetTimer(config_.backlog_timeout_us, kBacklogTag);
    }
    if (ready_.empty()) to_add_ = 1;
    desire_ = static_cast<double>(std::min(Ceil(desire_), std::max<int64_t>(1, SparkMaxNeeded())));
    // Every idle container has its timer once Settle has run, and Settle
    // runs after every change to the pool: the ones without are those that
    // turned idle since.
    for (uint32_t id : pool_.newly_idle()) {
      if (idle_since_.contains(id)) continue;
      idle_since_[id] = now;
      ctx_.SetTimer(config_.idle_timeout_us, (uint64_t{id} << 8) | kIdleTag);
    }
    pool_.ClearNewlyIdle();
    SendDesire(Ceil(desire_));
    return;
  }
  if (config_.desire_mode == DesireMode::kPerTask) SendDesire(static_cast<int64_t>(ready_.size()) + running_);
  GiveBack(Keep());
  // A stage too large for every held container (it became known after they
  // were granted): idle containers go back so larger ones can come.
  if (!ready_.empty() && !pool_.empty()) {
    const Resources& d = ctx_.job(job_).demand(ready_.ordered().begin()->second.stage);
    if (!pool_.Holds(d, ctx_.cluster().unfitted())) {
      SendDesire(Keep());
      const std::vector<uint32_t> idle(pool_.idle().begin(), pool_.idle().end());
      for (uint32_t id : idle) Release(ContainerId(id));
    }
  }
}

void CobraManager::GiveBack(int64_t keep) {
  int64_t kept = static_cast<int64_t>(pool_.size()) - static_cast<int64_t>(draining_.size());
  if (kept <= keep) return;
  // Idle containers first, then the emptiest (fewest tasks, latest granted):
  // the pool keeps them in that order, so this visits the ones given back
  // and the draining ones before them, not every container held.
  std::vector<ContainerId> release;
  std::vector<uint32_t> drain;
  for (const auto& [tasks, id] : pool_.by_load()) {
    if (kept <= keep) break;
    if (draining_.contains(id)) continue;
    --kept;
    if (tasks == 0 || ctx_.container(ContainerId(id)) == nullptr) {
      release.push_back(ContainerId(id));
    } else {
      drain.push_back(id);
    }
  }
  draining_.insert(drain.begin(), drain.end());
  for (ContainerId id : release) Release(id);
}

void CobraManager::Release(ContainerId id) {
  if (ctx_.container(id) != nullptr && !ctx_.ReleaseContainer(id).ok()) return;
  // A container already gone with its machine: OnContainerLost would say
  // so; forgetting it now is the same.
  pool_.Remove(id);
  draining_.erase(id.value());
  idle_since_.erase(id.value());
}

void CobraManager::EndPeriod() {
  const TimeUs now = ctx_.Now();
  const double u = meter_.Utilization(now);
  const auto a = static_cast<double>(period_max_held_);
  const bool waited = period_waited_ || !ready_.empty();
  if (config_.broken_af && u < config_.af.delta && !waited) {
    desire_ *= config_.af.rho;  // deliberately wrong (test only): grows when inefficient
  } else {
    // a is a whole number of containers, so d > a exactly when the ⌈d⌉
    // containers asked for did not all come (deprived).
    desire_ = AfNextDesire(desire_, a, u, waited, config_.af);
  }
  // A job with work left keeps at least one container (the paper's desire
  // can fall below 1; no container means no progress).
  desire_ = std::max(1.0, desire_);
  // What Af saw and decided, per period, into the run's series.csv: the
  // measured utilization (in the runtime, from the nodes' samples) and the
  // desire it led to.
  ctx_.Record("utilization", job(), u);
  ctx_.Record("desire", job(), desire_);
  meter_.Restart(now);
  period_max_held_ = static_cast<int64_t>(pool_.size() - draining_.size());
  period_waited_ = !ready_.empty();
  allocation_ = -1;  // a new period: the scheduler divides again
  SendDesire(Keep());
  GiveBack(Keep());
}

void CobraManager::SparkBacklog() {
  backlog_armed_ = false;
  if (ready_.empty()) {
    to_add_ = 1;
    return;
  }
  // ExecutorAllocationManager: add 1, 2, 4, ... executors per sustained
  // backlog timeout, up to what the waiting and running tasks can use.
  const int64_t max_needed = SparkMaxNeeded();
  const int64_t target = std::min(max_needed, Ceil(desire_) + to_add_);
  to_add_ = target >= max_needed ? 1 : to_add_ * 2;
  desire_ = static_cast<double>(std::max(target, Ceil(desire_)));
  SendDesire(Ceil(desire_));
  backlog_armed_ = true;
  ctx_.SetTimer(config_.sustained_backlog_timeout_us, kBacklogTag);
}

int64_t CobraManager::SparkMaxNeeded() const {
  // spark.executor.cores / spark.task.cpus: how many of the first waiting
  // (else any known) stage's tasks one container holds.
  const JobView view = ctx_.job(job_);
  Resources d;
  if (!ready_.empty()) d = view.demand(ready_.ordered().begin()->second.stage);
  int64_t per = -1;
  for (Resource r : {kCpu, kMem}) {
    if (d.micro(r) <= 0) continue;
    const int64_t n = config_.container.micro(r) / d.micro(r);
    per = per < 0 ? n : std::min(per, n);
  }
  per = std::max<int64_t>(1, per);
  const int64_t tasks = static_cast<int64_t>(ready_.size()) + running_;
  return (tasks + per - 1) / per;
}

void CobraManager::SendDesire(int64_t containers) {
  containers = std::max<int64_t>(0, containers);
  const Resources floor = Floor();
  if (containers == sent_desire_ && floor == sent_floor_) return;
  sent_desire_ = containers;
  sent_floor_ = floor;
  Message m;
  m.type = kSetDesire;
  m.a = containers;
  // The floor, then what a container must hold (the first waiting stage's
  // demand): on machines smaller than the configured size, a container cut
  // down to the machine still serves the job. It goes with the floor only,
  // so it may be an earlier stage's demand (one that fits some machine too).
  m.list = EncodeResources(floor);
  const std::vector<int64_t> must_fit = EncodeResources(MustFit());
  m.list.insert(m.list.end(), must_fit.begin(), must_fit.end());
  ctx_.Send(Address::Scheduler(0), std::move(m));
}

void CobraManager::SampleBeforeFill() {
  if (static_cast<int64_t>(pool_.size()) > period_max_held_) Sample();
}

void CobraManager::Sample() {
  if (config_.desire_mode != DesireMode::kAf) return;
  Resources used;
  Resources size;
  int64_t held = 0;
  for (const IndexedContainerPool::Entry& e : pool_.entries()) {
    const ContainerInfo* info = ctx_.container(e.id);
    if (info == nullptr) continue;
    used += info->used;
    size += info->size;
    ++held;
  }
  meter_.Sample(ctx_.Now(), used, size);
  period_max_held_ = std::max(period_max_held_, held);
}

}  // namespace weft::policy::cobra
