#include "policy/common/fair_share.h"

#include <algorithm>

namespace weft::policy {

double CpuShare(const Resources& allocated, double weight) {
  return static_cast<double>(allocated.micro(kCpu)) / kMicroUnits / weight;
}

double DominantShare(const Resources& allocated, const Resources& capacity, double weight) {
  double dominant = 0;
  for (int r = 0; r < kNumResources; ++r) {
    const auto res = static_cast<Resource>(r);
    if (capacity.micro(res) <= 0) continue;
    dominant = std::max(dominant, static_cast<double>(allocated.micro(res)) / static_cast<double>(capacity.micro(res)));
  }
  return dominant / weight;
}

// ---------------------------------------------------------------------------
// FairShareBook

FairShareBook::User& FairShareBook::At(UserId user) {
  if (user.value() >= users_.size()) users_.resize(user.value() + 1);
  return users_[user.value()];
}

void FairShareBook::AddJob(UserId user, JobId job, double weight) {
  User& u = At(user);
  if (!u.job_weights.emplace(job.value(), weight).second) return;
  u.weights.insert(weight);
  Update(user.value());
}

void FairShareBook::RemoveJob(UserId user, JobId job) {
  User& u = At(user);
  auto it = u.job_weights.find(job.value());
  if (it != u.job_weights.end()) {
    u.weights.erase(u.weights.find(it->second));
    u.job_weights.erase(it);
  }
  for (auto g = u.groups.begin(); g != u.groups.end();) {
    if (g->second.job == job) {
      u.group_keys.erase(g->second.Packed());
      g = u.groups.erase(g);
    } else {
      ++g;
    }
  }
  Update(user.value());
}

void FairShareBook::Charge(UserId user, const Resources& demand) {
  At(user).allocated += demand;
  Update(user.value());
}

void FairShareBook::Refund(UserId user, const Resources& demand) {
  At(user).allocated -= demand;
  Update(user.value());
}

void FairShareBook::AddGroup(UserId user, const GroupId& group, const OrderKey& key) {
  User& u = At(user);
  if (!u.group_keys.emplace(group.Packed(), key).second) return;
  u.groups.insert({key, group});
  if (u.groups.size() == 1) Update(user.value());
}

void FairShareBook::DropGroup(UserId user, const GroupId& group) {
  User& u = At(user);
  auto it = u.group_keys.find(group.Packed());
  if (it == u.group_keys.end()) return;
  u.groups.erase({it->second, group});
  u.group_keys.erase(it);
  if (u.groups.empty()) Update(user.value());
}

double FairShareBook::weight(UserId user) const {
  if (user.value() >= users_.size() || users_[user.value()].weights.empty()) return 1.0;
  return *users_[user.value()].weights.rbegin();
}

Resources FairShareBook::allocated(UserId user) const {
  return user.value() < users_.size() ? users_[user.value()].allocated : Resources();
}

double FairShareBook::share(UserId user) const {
  return user.value() < users_.size() ? users_[user.value()].share : 0.0;
}

const FairShareBook::Groups& FairShareBook::groups(UserId user) const {
  static const Groups kEmpty;
  return user.value() < users_.size() ? users_[user.value()].groups : kEmpty;
}

void FairShareBook::Update(uint32_t user) {
  User& u = users_[user];
  needy_.erase({u.share, user});
  u.share = share_fn_(u.allocated, weight(UserId(user)));
  if (!u.groups.empty()) needy_.insert({u.share, user});
}

// ---------------------------------------------------------------------------
// FairShareScheduler

FairShareScheduler::FairShareScheduler(Context& ctx, FairShareBook::ShareFn share)
    : OfferScheduler(ctx), book_(std::move(share)) {}

void FairShareScheduler::RegisterJob(JobId job) {
  const JobView view = ctx_.job(job);
  book_.AddJob(view.user(), job, view.weight());
}

void FairShareScheduler::OnJobArrived(JobId job) { RegisterJob(job); }

void FairShareScheduler::OnJobFinished(JobId job, bool succeeded) {
  OfferScheduler::OnJobFinished(job, succeeded);
  book_.RemoveJob(ctx_.job(job).user(), job);
}

void FairShareScheduler::OnLaunched(const TaskRef& task, MachineId /*machine*/) {
  const JobView job = ctx_.job(task.job);
  book_.Charge(job.user(), job.demand(task.stage));
}

void FairShareScheduler::OnEnded(const TaskEnd& end) {
  const JobView job = ctx_.job(end.task.job);
  book_.Refund(job.user(), job.demand(end.task.stage));
}

void FairShareScheduler::RequestFullRound() {
  serve_all_ = true;
  RequestRound();
}

void FairShareScheduler::Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) {
  for (const GroupId& group : fresh) {
    // The job may be heard of first through its tasks (messages from
    // different senders are not ordered); registering is idempotent.
    RegisterJob(group.job);
    book_.AddGroup(ctx_.job(group.job).user(), group, *pool_.key(group));
  }
  // Machines are served in increasing id, each once, so rounds are
  // deterministic. Serving a machine changes only its own candidacy.
  if (!fresh.empty() || serve_all_) {
    // Every machine with room: the candidates, already in order. Freed
    // machines without room have nothing to give.
    serve_all_ = false;
    finder_.ForEachCandidate([&](MachineId m) {
      Serve(m);
      return !book_.needy().empty();
    });
    return;
  }
  for (MachineId m : freed) {
    if (book_.needy().empty()) return;
    Serve(m);
  }
}

std::optional<TaskRef> FairShareScheduler::PickTask(const GroupId& group, MachineId machine) {
  if (!ctx_.cluster().Fits(machine, ctx_.job(group.job).demand(group.stage))) return std::nullopt;
  return pool_.Front(group);
}

void FairShareScheduler::Serve(MachineId machine) {
  if (!ctx_.cluster().up(machine)) return;
  // Users and groups that could not use the machine: resources only shrink
  // during Serve, so they stay unable until it returns.
  std::vector<uint32_t> unable_users;
  std::vector<uint64_t> unable_groups;
  auto contains = [](const auto& v, auto x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  while (!Full(machine)) {
    bool launched = false;
    for (const auto& entry : book_.needy()) {
      const UserId user(entry.second);  // a copy: launching re-sorts needy()
      if (contains(unable_users, user.value())) continue;
      for (const auto& [key, group_ref] : book_.groups(user)) {
        const GroupId group = group_ref;
        if (contains(unable_groups, group.Packed())) continue;
        const std::optional<TaskRef> task = PickTask(group, machine);
        if (task && Launch(*task, machine)) {
          // Launch changed the books and invalidated both iterators: drop
          // the group if it has no ready task left, then re-evaluate the
          // shares from the top.
          if (pool_.count(group) == 0) book_.DropGroup(user, group);
          launched = true;
          break;
        }
        unable_groups.push_back(group.Packed());
      }
      if (launched) break;
      unable_users.push_back(user.value());
    }
    if (!launched) return;
  }
}

}  // namespace weft::policy
