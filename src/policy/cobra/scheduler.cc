#include "policy/cobra/scheduler.h"

#include <algorithm>

#include "policy/common/container_pool.h"
#include "policy/common/ready_pool.h"

namespace weft::policy::cobra {
namespace {

// Timer tags of the scheduler.
constexpr uint64_t kGrantTag = 1;      // a response time elapsed
constexpr uint64_t kRebalanceTag = 2;  // the once-per-instant division

}  // namespace

std::vector<int64_t> FairDivision(const std::vector<int64_t>& desires, int64_t slots) {
  std::vector<int64_t> alloc(desires.size(), 0);
  int64_t left = std::max<int64_t>(0, slots);
  while (left > 0) {
    int64_t hungry = 0;
    for (size_t i = 0; i < desires.size(); ++i) hungry += alloc[i] < desires[i] ? 1 : 0;
    if (hungry == 0) break;
    // An equal share each (at least one, so the remainder goes to the
    // earlier jobs); a satisfied job's leftover is split in the next round.
    const int64_t share = std::max<int64_t>(1, left / hungry);
    for (size_t i = 0; i < desires.size() && left > 0; ++i) {
      const int64_t give = std::min({share, desires[i] - alloc[i], left});
      if (give <= 0) continue;
      alloc[i] += give;
      left -= give;
    }
  }
  return alloc;
}

CobraScheduler::CobraScheduler(Context& ctx, const CobraConfig& config)
    : ClusterScheduler(ctx),
      config_(config),
      granter_(ctx, config.response_time_us, kGrantTag, config.cpu_oversubscription),
      slots_(config.container, config.cpu_oversubscription) {}

void CobraScheduler::OnMessage(const Address& from, const Message& message) {
  if (from.kind != RoleKind::kJobManager || message.type != kSetDesire) return;
  const JobId job(from.index);
  const JobView view = ctx_.job(job);
  if (view.finished()) return;  // a desire can still be in flight when its job ends
  auto [it, is_new] = jobs_.try_emplace(job.value());
  if (is_new) order_.emplace(FifoKey(view, 0), job);
  it->second.desire = std::max<int64_t>(0, message.a);
  it->second.floor = DecodeResources(message.list);
  if (it->second.floor.IsZero()) it->second.floor = config_.container;
  it->second.must_fit = DecodeResources(std::span(message.list).subspan(std::min<size_t>(message.list.size(), kNumResources)));
  Touch();
}

void CobraScheduler::OnTimer(uint64_t tag) {
  if (tag == kRebalanceTag) {
    rebalance_pending_ = false;
    Rebalance();
  } else if (granter_.OnTimer(tag)) {
    Grant();
  }
}

void CobraScheduler::OnJobFinished(JobId job, bool /*succeeded*/) {
  granter_.Drop(job);
  if (jobs_.erase(job.value()) > 0) order_.erase(FifoKey(ctx_.job(job), 0));
  // Its containers come back through OnContainerReleased.
  Touch();
}

void CobraScheduler::OnMachineUp(MachineId machine) {
  granter_.Refresh(machine);
  Touch();
}

void CobraScheduler::OnMachineDown(MachineId machine) {
  granter_.Refresh(machine);
  Touch();
}

void CobraScheduler::OnContainerReleased(const ContainerInfo& container) {
  granter_.Refresh(container.machine);
  auto it = container_job_.find(container.id.value());
  if (it != container_job_.end()) {
    if (auto j = jobs_.find(it->second.value()); j != jobs_.end()) --j->second.held;
    container_job_.erase(it);
  }
  Touch();
}

void CobraScheduler::Touch() {
  if (rebalance_pending_) return;
  rebalance_pending_ = true;
  ctx_.SetTimer(0, kRebalanceTag);
}

int64_t ContainerSlots::OnMachine(const Resources& capacity) const {
  int64_t fit = -1;
  for (Resource r : {kCpu, kMem}) {
    const int64_t want = container_.micro(r);
    if (want <= 0) continue;
    int64_t have = capacity.micro(r);
    if (r == kCpu && cpu_oversubscription_ > 1) {
      have = static_cast<int64_t>(static_cast<double>(have) * cpu_oversubscription_);
    }
    const int64_t n = have / want;
    fit = fit < 0 ? n : std::min(fit, n);
  }
  return std::max<int64_t>(1, fit);
}

int64_t ContainerSlots::Count(const ClusterState& cluster) {
  if (per_machine_.size() != cluster.size()) {
    per_machine_.resize(cluster.size());
    all_ = 0;
    for (uint32_t m = 0; m < cluster.size(); ++m) {
      per_machine_[m] = OnMachine(cluster.capacity(MachineId(m)));
      all_ += per_machine_[m];
    }
  }
  if (cluster.num_up() == cluster.size()) return all_;
  int64_t slots = 0;
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    if (cluster.up(MachineId(m))) slots += per_machine_[m];
  }
  return slots;
}

void CobraScheduler::Rebalance() {
  std::vector<int64_t> desires;
  desires.reserve(order_.size());
  for (const auto& [key, job] : order_) desires.push_back(jobs_.at(job.value()).desire);
  const std::vector<int64_t> alloc = FairDivision(desires, slots_.Count(ctx_.cluster()));
  size_t i = 0;
  for (const auto& [key, job] : order_) {
    JobState& s = jobs_.at(job.value());
    const int64_t a = alloc[i++];
    if (a != s.told && (a < s.held || s.told >= 0)) {
      // Over its allocation: the job gives the excess back as it empties.
      // A job told a cap before hears every later change, a raise too:
      // otherwise it would give back, at its old cap, the containers granted
      // for the new one, which are then granted again, forever.
      s.told = a;
      Message m;
      m.type = kAllocation;
      m.a = a;
      ctx_.Send(Address::JobManager(job), std::move(m));
    }
    s.allocation = a;
    const int64_t want = std::max<int64_t>(0, a - s.held);
    const int64_t waiting = granter_.Waiting(job);
    if (want > waiting) {
      // must_fit = the waiting stage's demand: a container cut down to a
      // machine too small for it could not hold the stage the floor was grown
      // for (and would be given back and granted again, forever); one cut
      // down from the configured size alone still serves the job.
      granter_.Add(job, key, ContainerRequest{s.floor, s.must_fit, want - waiting, false});
    } else if (want < waiting) {
      granter_.Cap(job, want);
    }
  }
  Grant();
}

void CobraScheduler::Grant() {
  granter_.TryGrant({}, [&](JobId job, ContainerId id, MachineId /*machine*/) {
    container_job_[id.value()] = job;
    if (auto j = jobs_.find(job.value()); j != jobs_.end()) ++j->second.held;
  });
}

}  // namespace weft::policy::cobra
