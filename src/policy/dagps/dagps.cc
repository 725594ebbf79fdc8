#include "policy/dagps/dagps.h"

#include <algorithm>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "policy/common/fair_share.h"
#include "policy/common/offer_scheduler.h"
#include "policy/common/packing.h"
#include "policy/dagps/builder.h"
#include "policy/dagps/matcher.h"

namespace weft::policy::dagps {
namespace {

struct DagpsOptions {
  double eta = 0.2;
  double remote_penalty = 0.8;
  double overbook = 0;
  double kappa = 0.1;
  BuildOptions build;  // delta 0.2 by default
  uint32_t plan_machines = 0;
  bool relative_pri = true;  // docs/reproductions/dagps.md, "Choosing the relative_pri default"
};

class DagpsScheduler final : public OfferScheduler {
 public:
  DagpsScheduler(Context& ctx, const DagpsOptions& options)
      : OfferScheduler(ctx), options_(options), reference_(ReferenceCapacity(ctx.cluster())) {
    for (uint32_t m = 0; m < ctx.cluster().size(); ++m) total_ += ctx.cluster().capacity(MachineId(m));
  }

  void OnJobArrived(JobId job) override { Plan(job); }

  void OnTasksReady(const TaskRange& range) override {
    // Ready tasks of each stage ranked by priScore, so that the plan's
    // preferred task of a stage (not merely its lowest index) is the one
    // scored and launched.
    const JobPlan& plan = Plan(range.job);
    auto& ranked = ranked_[GroupId{range.job, range.stage}.Packed()];
    for (uint32_t i = range.begin; i < range.end; ++i) {
      ranked.emplace(-plan.pri[plan.offset[range.stage] + i], i);
    }
    OfferScheduler::OnTasksReady(range);
  }

  void OnJobFinished(JobId job, bool succeeded) override {
    for (uint32_t s = 0; s < ctx_.job(job).num_stages(); ++s) ranked_.erase(GroupId{job, s}.Packed());
    OfferScheduler::OnJobFinished(job, succeeded);
    plans_.erase(job.value());
    RequestRound();  // the finished job's ready tasks are gone: activity changed
  }

 protected:
  OrderKey KeyFor(const GroupId& g) override { return FifoKey(ctx_.job(g.job), g.stage); }
  // Round (OfferScheduler calls it once per instant, with everything that
  // happened at that instant known): new ready tasks may go anywhere, so
  // every machine is served; otherwise only the machines that freed room.
  void Round(std::span<const MachineId> freed, std::span<const GroupId> fresh) override {
    if (!fresh.empty() || freed.empty()) {
      for (uint32_t m = 0; m < ctx_.cluster().size(); ++m) {
        if (ctx_.cluster().up(MachineId(m))) Serve(MachineId(m));
      }
    } else {
      for (MachineId m : freed) Serve(m);
    }
    SyncActivity();
  }
  void OnEnded(const TaskEnd& end) override {
    if (end.outcome != Outcome::kOk) return;  // failed or killed: still to do
    auto it = plans_.find(end.task.job.value());
    if (it == plans_.end()) return;
    it->second.remaining =
        std::max(0.0, it->second.remaining - TaskWork(ctx_.job(end.task.job), end.task, reference_));
  }

 private:
  struct JobPlan {
    std::vector<uint64_t> offset;
    std::vector<float> pri;  // per task
    double remaining = 0;    // srpt_j
  };

  JobPlan& Plan(JobId job) {
    auto it = plans_.find(job.value());
    if (it != plans_.end()) return it->second;
    const JobView view = ctx_.job(job);
    JobPlan plan;
    plan.remaining = RemainingWork(view, reference_);
    const PlanInput input = PlanInputFromView(view, ctx_.cluster(), options_.plan_machines);
    plan.offset = input.stage_offsets();
    absl::StatusOr<Schedule> schedule = BuildSchedule(input, options_.build);
    if (schedule.ok()) {
      plan.pri.assign(schedule->pri_score.begin(), schedule->pri_score.end());
    } else {
      // No plan (e.g. a task fits none of the machines that are up): every
      // task is equally preferred and packing and srpt decide.
      plan.pri.assign(input.num_tasks(), 1.0f);
    }
    return plans_.emplace(job.value(), std::move(plan)).first->second;
  }

  // Overbookable: memory fits exactly, cpu/disk/net within (1 + overbook) x
  // capacity; returns oScore's base 1 / (1 + overload), or 0 when not allowed.
  double OverbookScore(MachineId m, const Resources& demand) const {
    if (options_.overbook <= 0) return 0;
    const ClusterState& cluster = ctx_.cluster();
    const Resources after = cluster.allocated(m) + demand;
    const Resources& cap = cluster.capacity(m);
    if (after.micro(kMem) > cap.micro(kMem)) return 0;
    double overload = 0;
    for (Resource r : {kCpu, kDisk, kNet}) {
      if (after.micro(r) <= cap.micro(r)) continue;
      if (cap.micro(r) <= 0) return 0;
      const double over = static_cast<double>(after.micro(r) - cap.micro(r)) / static_cast<double>(cap.micro(r));
      if (over > options_.overbook) return 0;
      overload = std::max(overload, over);
    }
    return 1.0 / (1.0 + overload);
  }

  // Serve runs Fig. 8 on machine m until nothing more can go there.
  void Serve(MachineId m) {
    const ClusterState& cluster = ctx_.cluster();
    while (!pool_.empty()) {
      if (options_.overbook <= 0 && Full(m)) return;
      candidates_.clear();
      groups_.clear();
      job_top_.clear();
      weights_.clear();
      for (const auto& [key, g] : pool_.ordered()) {
        const JobView view = ctx_.job(g.job);
        const uint32_t user = view.user().value();
        weights_[user] = std::max(weights_[user], view.weight());
        const Resources& demand = view.demand(g.stage);
        MatchCandidate c;
        c.fits = cluster.Fits(m, demand);
        c.overbook = c.fits ? 0 : OverbookScore(m, demand);
        if (!c.fits && c.overbook <= 0) continue;
        const TaskRef task = Preferred(g);
        JobPlan& plan = Plan(g.job);
        c.pri_score = plan.pri[plan.offset[task.stage] + task.index];
        c.alignment = c.fits ? MachineAlignment(cluster, m, demand) : 0;
        const auto prefs = view.preferences(task);
        c.remote = !prefs.empty() && std::find(prefs.begin(), prefs.end(), m) == prefs.end();
        c.srpt = plan.remaining;
        c.group = user;
        if (options_.relative_pri) {
          auto [it, fresh] = job_top_.try_emplace(g.job.value(), c.pri_score);
          if (!fresh) it->second = std::max(it->second, c.pri_score);
        }
        candidates_.push_back(c);
        groups_.push_back(g);
      }
      SyncActivity();
      if (candidates_.empty()) return;
      if (options_.relative_pri) Relativize();
      const double eta = Eta(candidates_, options_.eta, options_.remote_penalty);
      std::optional<size_t> pick;
      if (const std::optional<uint32_t> needy = deficits_.Neediest(options_.kappa)) {
        pick = PickBest(candidates_, eta, options_.remote_penalty, needy);
      }
      if (!pick) pick = PickBest(candidates_, eta, options_.remote_penalty);
      if (!pick) return;
      const GroupId g = groups_[*pick];
      const Resources demand = ctx_.job(g.job).demand(g.stage);
      const TaskRef task = Preferred(g);
      if (!Launch(task, m)) return;  // refused: stop rather than spin
      auto& ranked = ranked_[g.Packed()];
      JobPlan& plan = Plan(g.job);
      ranked.erase({-plan.pri[plan.offset[task.stage] + task.index], task.index});
      deficits_.Charge(candidates_[*pick].group, DominantShare(demand, total_, 1.0));
    }
    SyncActivity();
  }

  // Preferred: the group's ready task with the highest priScore (the lowest
  // index on ties); the pool's front task if the ranking lost track.
  TaskRef Preferred(const GroupId& g) {
    auto it = ranked_.find(g.Packed());
    if (it == ranked_.end() || it->second.empty()) return pool_.Front(g);
    return TaskRef{g.job, g.stage, it->second.begin()->second};
  }

  // Relativize divides each candidate's priScore by the highest among its
  // job's candidates, so that each job's next planned task scores 1.
  void Relativize() {
    for (size_t i = 0; i < candidates_.size(); ++i) {
      const double top = job_top_[groups_[i].job.value()];
      if (top > 0) candidates_[i].pri_score /= top;
    }
  }

  // SyncActivity: the users with ready tasks are the active groups (weights_
  // was filled from the pool by the caller; an empty pool clears it).
  void SyncActivity() {
    if (pool_.empty()) weights_.clear();
    for (uint32_t user : active_) {
      if (!weights_.contains(user)) deficits_.SetActive(user, false);
    }
    active_.clear();
    for (const auto& [user, weight] : weights_) {
      deficits_.SetActive(user, true, weight > 0 ? weight : 1.0);
      active_.push_back(user);
    }
  }

  const DagpsOptions options_;
  const Resources reference_;
  Resources total_;
  absl::flat_hash_map<uint32_t, JobPlan> plans_;  // by job id
  // Per group (GroupId::Packed), its ready tasks as (-priScore, index).
  absl::flat_hash_map<uint64_t, std::set<std::pair<float, uint32_t>>> ranked_;
  DeficitCounters deficits_;
  std::vector<uint32_t> active_;
  std::map<uint32_t, double> weights_;  // scratch: users with ready tasks, their weight
  std::vector<MatchCandidate> candidates_;
  absl::flat_hash_map<uint32_t, double> job_top_;  // scratch: best priScore per job among candidates
  std::vector<GroupId> groups_;
};

class DagpsPolicy final : public Policy {
 public:
  explicit DagpsPolicy(const DagpsOptions& options) : options_(options) {}
  Knowledge knowledge() const override { return Knowledge::kClairvoyant; }
  ResourceMask overbooked_by_design() const override {
    return options_.overbook > 0 ? MaskOf(kCpu) | MaskOf(kDisk) | MaskOf(kNet) : 0;
  }
  std::unique_ptr<ClusterScheduler> MakeScheduler(Context& ctx, uint32_t /*replica*/) override {
    return std::make_unique<DagpsScheduler>(ctx, options_);
  }

 private:
  DagpsOptions options_;
};

}  // namespace

const PolicyInfo kDagpsInfo{
    .name = "dagps",
    .description = "DAGPS/Graphene: per-job plan placing troublesome tasks first, enforced online by packing, srpt and bounded unfairness",
    .source = "Grandl et al., Do the Hard Stuff First: Scheduling Dependent Computations in Data-Analytics Clusters (DAGPS), MSR-TR-2016-19, sections 4-5, 8.5",
    .params = {{.name = "eta", .type = ParamType::kDouble, .default_value = "0.2",
                .help = "m in eta = m x mean(priScore x pScore) / mean(srpt) (section 8.5)", .min = 0, .max = 1e6},
               {.name = "remote_penalty", .type = ParamType::kDouble, .default_value = "0.8",
                .help = "rp: pScore multiplier for a task off its preferred machines", .min = 0, .max = 1},
               {.name = "overbook", .type = ParamType::kDouble, .default_value = "0",
                .help = "fraction of cpu/disk/net capacity that may be overbooked; 0 = off", .min = 0, .max = 4},
               {.name = "kappa", .type = ParamType::kDouble, .default_value = "0.1",
                .help = "unfairness bound: deficit (fraction of the cluster) at which a user must be served; 0 = strictly fair",
                .min = 0, .max = 1e6},
               {.name = "relative_pri", .type = ParamType::kBool, .default_value = "true",
                .help = "divide priScore by the best of the job's candidates (each job's next planned task scores 1); "
                        "false = the paper's literal priScore, compared across jobs (behind on JCT on every workload "
                        "measured, docs/reproductions/dagps.md)"},
               {.name = "delta", .type = ParamType::kDouble, .default_value = "0.2",
                .help = "step of the LongScore/FragScore thresholds of the plan search", .min = 0.01, .max = 1},
               {.name = "max_candidates", .type = ParamType::kInt, .default_value = "0",
                .help = "troublesome sets tried per DAG part; 0 = every distinct one", .min = 0, .max = 1e6},
               {.name = "plan_machines", .type = ParamType::kInt, .default_value = "0",
                .help = "machines in a plan's resource-time space; 0 = every machine that is up", .min = 0, .max = 1e9}},
    .make = [](const Params& p) -> absl::StatusOr<std::unique_ptr<Policy>> {
      DagpsOptions o;
      o.eta = p.Double("eta");
      o.remote_penalty = p.Double("remote_penalty");
      o.overbook = p.Double("overbook");
      o.kappa = p.Double("kappa");
      o.build.delta = p.Double("delta");
      o.build.max_candidates = static_cast<uint32_t>(p.Int("max_candidates"));
      o.plan_machines = static_cast<uint32_t>(p.Int("plan_machines"));
      o.relative_pri = p.Bool("relative_pri");
      return std::make_unique<DagpsPolicy>(o);
    },
};

}  // namespace weft::policy::dagps
