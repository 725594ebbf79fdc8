#include "python/job_order_policy.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace weft::python {

using policy::GroupId;
using policy::OrderKey;

void JobOrderObservation::Clear() {
  std::fill(jobs.begin(), jobs.end(), 0.0f);
  std::fill(mask.begin(), mask.end(), 0);
  std::fill(cluster.begin(), cluster.end(), 0.0);
  std::fill(users.begin(), users.end(), 0.0);
  job_ids.clear();
}

class JobOrderPolicy::Scheduler final : public policy::OfferScheduler {
 public:
  Scheduler(policy::Context& ctx, JobOrderAgent& agent, JobOrderObservation& observation, Offers offers)
      : OfferScheduler(ctx), agent_(agent), observation_(observation), offers_(offers), book_(policy::CpuShare) {}

  void OnJobArrived(JobId job) override {
    Accrue();
    ++in_system_;
    RegisterJob(job);
  }
  void OnJobFinished(JobId job, bool succeeded) override {
    Accrue();
    --in_system_;
    OfferScheduler::OnJobFinished(job, succeeded);
    book_.RemoveJob(ctx_.job(job).user(), job);
  }

  // The job-seconds accrued since the last decision up to `end_us` (minus the reward).
  double AccruedSeconds(TimeUs end_us) const {
    return (accrued_us_ + static_cast<double>(in_system_) * static_cast<double>(end_us - last_us_)) / 1e6;
  }

 protected:
  OrderKey KeyFor(const GroupId& g) override { return policy::FifoKey(ctx_.job(g.job), g.stage); }

  // The users' holdings, as FairShareScheduler keeps them (the observation's users).
  void OnLaunched(const TaskRef& task, MachineId /*machine*/) override {
    const policy::JobView job = ctx_.job(task.job);
    book_.Charge(job.user(), job.demand(task.stage));
  }
  void OnEnded(const policy::TaskEnd& end) override {
    const policy::JobView job = ctx_.job(end.task.job);
    book_.Refund(job.user(), job.demand(end.task.stage));
  }

  void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) override {
    if (offers_ == Offers::kPerMachine) {
      PerMachineRound(freed, fresh);
      return;
    }
    while (!abandoned_) {
      Gather(std::nullopt);
      const std::optional<size_t> pick_or_none = Pick();
      if (!pick_or_none) return;
      const size_t pick = *pick_or_none;
      const uint64_t before = pool_.count(candidates_[pick]);
      PlaceGroup(candidates_[pick]);
      if (pool_.count(candidates_[pick]) == before) return;  // refused: never ask the same question forever
    }
  }

 private:
  // Accrue integrates the jobs in the system up to now.
  void Accrue() {
    const TimeUs now = ctx_.Now();
    accrued_us_ += static_cast<double>(in_system_) * static_cast<double>(now - last_us_);
    last_us_ = now;
  }

  void RegisterJob(JobId job) {
    const policy::JobView view = ctx_.job(job);
    book_.AddJob(view.user(), job, view.weight());
  }

  // PerMachineRound: FairShareScheduler's Round, with the agent choosing
  // whom each machine serves.
  void PerMachineRound(std::span<const MachineId> freed, std::span<const GroupId> fresh) {
    // A job may be heard of first through its tasks (messages from different
    // senders are not ordered); registering is idempotent.
    for (const GroupId& group : fresh) RegisterJob(group.job);
    if (!fresh.empty()) {
      finder_.ForEachCandidate([&](MachineId m) {
        Serve(m);
        return !abandoned_ && !pool_.ordered().empty();
      });
      return;
    }
    for (MachineId m : freed) {
      if (abandoned_ || pool_.ordered().empty()) return;
      Serve(m);
    }
  }

  // Serve: one task at a time on `machine`, of the candidate the agent
  // chooses, until it is full or no candidate fits.
  void Serve(MachineId machine) {
    if (!ctx_.cluster().up(machine)) return;
    while (!abandoned_ && !Full(machine)) {
      Gather(machine);
      const std::optional<size_t> pick = Pick();
      if (!pick) return;
      if (!Launch(pool_.Front(candidates_[*pick]), machine)) return;  // refused: the machine is done
    }
  }

  // Pick: the candidate to serve, asking the agent when there is a choice;
  // none when there is no candidate or the agent left (abandoned_: decide
  // nothing more, let the run drain).
  std::optional<size_t> Pick() {
    if (candidates_.empty()) return std::nullopt;
    if (candidates_.size() == 1) return 0;
    Observe();
    const std::optional<uint32_t> action = agent_.Choose(observation_);
    if (!action) {
      abandoned_ = true;
      return std::nullopt;
    }
    return *action % std::min<size_t>(candidates_.size(), observation_.max_jobs);
  }

  // Gather: per job, its first ready group (in fifo's order) that fits now,
  // on `machine` when given, else on some machine.
  void Gather(std::optional<MachineId> machine) {
    candidates_.clear();
    seen_.clear();
    for (const auto& [key, g] : pool_.ordered()) {
      if (seen_.contains(g.job.value())) continue;
      const Resources& demand = ctx_.job(g.job).demand(g.stage);
      if (machine ? !ctx_.cluster().Fits(*machine, demand) : !finder_.FirstFit(demand).valid()) continue;
      seen_.insert(g.job.value());
      candidates_.push_back(g);
    }
  }

  void Observe() {
    Accrue();
    JobOrderObservation& o = observation_;
    o.Clear();
    // The first decision comes with the observation of reset(), which has no
    // reward: what accrued before it goes to the first step's, so that an
    // episode's return is minus the sum of its JCTs.
    if (o.decisions > 0) {
      o.reward = -accrued_us_ / 1e6;
      accrued_us_ = 0;
    }
    ++o.decisions;
    const TimeUs now = ctx_.Now();
    const size_t rows = std::min<size_t>(candidates_.size(), o.max_jobs);
    for (size_t i = 0; i < rows; ++i) {
      const GroupId& g = candidates_[i];
      const policy::JobView job = ctx_.job(g.job);
      float* row = &o.jobs[i * kJobFeatures];
      row[kReadyTasks] = static_cast<float>(pool_.count(g));
      row[kRemainingTasks] = static_cast<float>(job.num_tasks() - job.tasks_done());
      row[kWaitSeconds] = static_cast<float>(UsToSeconds(now - job.arrival()));
      row[kDemandCpu] = static_cast<float>(job.demand(g.stage).units(kCpu));
      row[kDemandMem] = static_cast<float>(job.demand(g.stage).units(kMem));
      row[kEstimatedSeconds] = static_cast<float>(UsToSeconds(job.EstimatedDuration(pool_.Front(g))));
      row[kStageIndex] = static_cast<float>(g.stage);
      row[kJobStages] = static_cast<float>(job.num_stages());
      row[kPriority] = static_cast<float>(job.priority());
      uint64_t running = 0;
      for (uint32_t st = 0; st < job.num_stages(); ++st) running += job.stage_progress(st).running;
      row[kRunningTasks] = static_cast<float>(running);
      o.mask[i] = 1;
      o.job_ids.push_back(g.job.value());
      if (!o.users.empty()) {
        double* user = &o.users[i * kUserFeatures];
        user[kUserId] = job.user().value();
        user[kUserCpuHeld] = static_cast<double>(book_.allocated(job.user()).micro(kCpu)) / kMicroUnits;
        user[kUserWeight] = book_.weight(job.user());
      }
    }
    const policy::ClusterState& cluster = ctx_.cluster();
    double free_cpu = 0, total_cpu = 0;
    for (size_t m = 0; m < cluster.size(); ++m) {
      const MachineId id(static_cast<uint32_t>(m));
      total_cpu += cluster.capacity(id).units(kCpu);
      if (cluster.up(id)) free_cpu += std::max(0.0, cluster.free(id).units(kCpu));
    }
    o.cluster[kNowSeconds] = UsToSeconds(now);
    o.cluster[kJobsInSystem] = in_system_;
    o.cluster[kFreeCpuFraction] = total_cpu > 0 ? free_cpu / total_cpu : 0;
    o.cluster[kCandidates] = static_cast<double>(candidates_.size());
  }

  JobOrderAgent& agent_;
  JobOrderObservation& observation_;
  Offers offers_;
  policy::FairShareBook book_;  // what each user holds, and its weight
  std::vector<GroupId> candidates_;
  absl::flat_hash_set<uint32_t> seen_;
  uint64_t in_system_ = 0;
  TimeUs last_us_ = 0;
  double accrued_us_ = 0;
  bool abandoned_ = false;
};

std::unique_ptr<policy::ClusterScheduler> JobOrderPolicy::MakeScheduler(policy::Context& ctx, uint32_t /*replica*/) {
  auto scheduler = std::make_unique<Scheduler>(ctx, agent_, observation_, offers_);
  scheduler_ = scheduler.get();
  return scheduler;
}

double JobOrderPolicy::RewardSinceLastDecision(TimeUs end_us) const {
  return scheduler_ == nullptr ? 0.0 : -scheduler_->AccruedSeconds(end_us);
}

}  // namespace weft::python
