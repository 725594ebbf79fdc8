// File: policy/common/fair_share.h
//
// The fair-share mechanism shared by the fair, drf and delay baselines.
//
// FairShareBook is the accounting: for every user, what its tasks hold
// (charged at launch, refunded when the attempt ends), its weight, its ready
// groups in FIFO order, and the ordered set of "needy" users (those with ready
// groups) from the lowest share up. The share is a function of (allocation,
// weight) the owner chooses: cpu / weight for the Hadoop/YARN Fair Scheduler
// (CpuShare), the weighted dominant share of DRF (DominantShare, Ghodsi et
// al., NSDI'11, section 4). Plain data, no Context: unit-testable alone.
//
// A user's weight is the largest weight of its active jobs (arrived, not
// finished); 1 when it has none. Deliberate choice: YARN weighs queues, not
// jobs, and weft's workload format has weights only on jobs; taking the
// maximum lets one heavy job lift its user without a user with many light
// jobs gaining weight by job count (summing would reward splitting work into
// many jobs).
//
// FairShareScheduler is an OfferScheduler that serves machines the way the
// Fair Scheduler answers a heartbeat (Hadoop's FairScheduler.assignTasks): the
// machine goes to the needy user with the lowest share that has a task able to
// run there, that user's groups are tried in FIFO order (FifoKey) and one
// task is launched; shares are re-evaluated after every launch, until the
// machine is full or no user can use it. It replaces OfferScheduler's Round
// (and so decides once per instant, with every arrival and end of the instant
// known; otherwise the first event delivered would take everything): fresh
// groups enter the books, then every machine with room is served when there
// were fresh groups or a full round was asked for, else only the freed ones.
// Subclasses choose which task of a group may run on a machine (PickTask:
// delay scheduling) and may keep timers of their own (OnPolicyTimer).
// Non-preemptive. Not thread-safe; owned by one role.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "model/resources.h"
#include "policy/common/offer_scheduler.h"
#include "policy/common/ready_pool.h"

namespace weft::policy {

// Share functions: smaller is needier.
// CpuShare: allocated cores / weight (the Fair Scheduler's fair share of cpu).
double CpuShare(const Resources& allocated, double weight);
// DominantShare: the largest fraction of `capacity` that `allocated` holds
// over the resources the cluster has, divided by weight (DRF).
double DominantShare(const Resources& allocated, const Resources& capacity, double weight);

class FairShareBook {
 public:
  using ShareFn = std::function<double(const Resources& allocated, double weight)>;
  using Groups = std::set<std::pair<OrderKey, GroupId>>;
  // Needy users, by (share, user id): lowest share first, ties to the
  // lowest user id.
  using Needy = std::set<std::pair<double, uint32_t>>;

  explicit FairShareBook(ShareFn share) : share_fn_(std::move(share)) {}

  // AddJob records an active job of `user` (idempotent); RemoveJob forgets it
  // and drops its ready groups. Both may change the user's weight.
  void AddJob(UserId user, JobId job, double weight);
  void RemoveJob(UserId user, JobId job);

  // Charge and Refund move a launched attempt's demand in and out of the
  // user's allocation. Precondition: Refund matches an earlier Charge.
  void Charge(UserId user, const Resources& demand);
  void Refund(UserId user, const Resources& demand);

  // AddGroup records a group of the user with ready tasks (idempotent: a
  // group already present keeps its key); DropGroup removes it.
  void AddGroup(UserId user, const GroupId& group, const OrderKey& key);
  void DropGroup(UserId user, const GroupId& group);

  double weight(UserId user) const;
  Resources allocated(UserId user) const;
  double share(UserId user) const;
  const Needy& needy() const { return needy_; }
  // The user's ready groups in FIFO order (empty for an unknown user).
  const Groups& groups(UserId user) const;

 private:
  struct User {
    Resources allocated;
    std::multiset<double> weights;           // of its active jobs
    std::map<uint32_t, double> job_weights;  // job id -> weight
    Groups groups;
    absl::flat_hash_map<uint64_t, OrderKey> group_keys;  // GroupId::Packed -> key
    double share = 0;
  };
  User& At(UserId user);
  // Update recomputes the user's share and its place among the needy.
  void Update(uint32_t user);

  ShareFn share_fn_;
  std::vector<User> users_;  // indexed by user id
  Needy needy_;
};

class FairShareScheduler : public OfferScheduler {
 public:
  FairShareScheduler(Context& ctx, FairShareBook::ShareFn share);

  void OnJobArrived(JobId job) override;
  void OnJobFinished(JobId job, bool succeeded) override;

  const FairShareBook& book() const { return book_; }

 protected:
  OrderKey KeyFor(const GroupId& group) override { return FifoKey(ctx_.job(group.job), group.stage); }
  void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) override;
  void OnLaunched(const TaskRef& task, MachineId machine) override;
  void OnEnded(const TaskEnd& end) override;

  // PickTask: a ready task of `group` to launch on `machine` now, or nullopt
  // when the group cannot use the machine. Default: the group's front task
  // when its demand fits.
  virtual std::optional<TaskRef> PickTask(const GroupId& group, MachineId machine);

  // RequestFullRound asks for a round at the current instant that serves
  // every machine with room (e.g. a wait expired: a user may now use room it
  // declined before).
  void RequestFullRound();

 private:
  // Serve gives `machine` to the neediest users until it is full or no user
  // has a task that PickTask lets run there.
  void Serve(MachineId machine);
  void RegisterJob(JobId job);

  FairShareBook book_;
  bool serve_all_ = false;
};

}  // namespace weft::policy
