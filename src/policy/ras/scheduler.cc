#include "policy/ras/scheduler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <span>

#include "absl/container/flat_hash_map.h"
#include "policy/ras/utility.h"

namespace weft::policy::ras {
namespace {

constexpr uint64_t kCycleTag = 1;

// ReduceProfiles: a reducer stage's shuffle and reduce profiles (§3.6). With
// profiled phases whose first is a "shuffle" phase behind a shuffle edge,
// the engine reserves that phase's demand from launch and the most the later
// phases need from the shuffle's end (model/shuffle.h, PhaseReservation);
// otherwise the task holds one reservation and both are it.
struct ReduceProfiles {
  Resources shuffle;
  Resources reduce;
};
ReduceProfiles ProfilesOf(const JobView& view, uint32_t s) {
  const std::span<const Phase> phases = view.Phases(s);
  bool shuffle_edge = false;
  for (const Edge& e : view.parents(s)) shuffle_edge |= e.kind == EdgeKind::kShuffle;
  if (phases.empty() || !phases.front().profiled || phases.front().name != "shuffle" || !shuffle_edge) {
    return {view.demand(s), view.demand(s)};
  }
  ReduceProfiles p{phases.front().demand, Resources()};
  for (size_t k = 1; k < phases.size(); ++k) {
    for (int i = 0; i < kNumResources; ++i) {
      const auto r = static_cast<Resource>(i);
      p.reduce.set_micro(r, std::max(p.reduce.micro(r), phases[k].demand.micro(r)));
    }
  }
  return p;
}

// LaunchDemand: what the engine reserves when `task` launches.
Resources LaunchDemand(const JobView& view, const TaskRef& task) {
  const std::span<const Phase> phases = view.Phases(task.stage);
  if (phases.empty() || !phases.front().profiled) return view.task_demand(task);
  return ProfilesOf(view, task.stage).shuffle;
}

}  // namespace

void RasScheduler::OnJobArrived(JobId job) {
  books_.try_emplace(job.value());
  // A new job gets its first slots at once rather than up to `period` later
  // (the paper's loop reacts "quickly to new job submissions").
  cycle_due_ = true;
  RequestRound();
}

void RasScheduler::OnJobFinished(JobId job, bool succeeded) {
  OfferScheduler::OnJobFinished(job, succeeded);
  books_.erase(job.value());
  if (books_.empty() && cycle_timer_ != TimerId::kNone) {
    // Nothing left to place: no timer outlives the last job.
    ctx_.CancelTimer(cycle_timer_);
    cycle_timer_ = TimerId::kNone;
  }
}

void RasScheduler::OnPolicyTimer(uint64_t tag) {
  if (tag != kCycleTag) return;
  cycle_timer_ = TimerId::kNone;
  cycle_due_ = true;
  RequestRound();
}

void RasScheduler::OnSlotEnded(const TaskEnd& end) {
  auto it = books_.find(end.task.job.value());
  if (it == books_.end() || end.outcome != Outcome::kOk) return;
  // The Job Status Updater: the mean task length per kind (§3.2).
  Learned& l = KindOf({end.task.job, end.task.stage}) == SlotKind::kMap ? it->second.map : it->second.reduce;
  l.total_us += end.end_us - end.start_us;
  ++l.count;
}

void RasScheduler::SlotRound() {
  if (cycle_due_) {
    cycle_due_ = false;
    Cycle();
    return;
  }
  if (pool_.empty()) return;
  for (MachineId m : serving_) Serve(m);
}

std::optional<double> RasScheduler::MeanLength(JobId job, SlotKind kind) const {
  auto it = books_.find(job.value());
  if (it != books_.end()) {
    const Learned& l = kind == SlotKind::kMap ? it->second.map : it->second.reduce;
    if (l.count > 0) return static_cast<double>(l.total_us) / l.count;
  }
  const JobView view = ctx_.job(job);
  for (uint32_t s = 0; s < view.num_stages(); ++s) {
    if (StageSlotKind(view, s) == kind && view.stage_tasks(s) > 0) {
      return static_cast<double>(view.EstimatedDuration(TaskRef{job, s, 0}));
    }
  }
  return std::nullopt;
}

PlacementJob RasScheduler::Describe(JobId job) const {
  const JobView view = ctx_.job(job);
  PlacementJob d;
  // A kind's profile is the demand of its first stage with ready tasks (the
  // tasks the Task Scheduler will start next), else with running tasks, else
  // with tasks left: a MapReduce job has one stage of each kind; other DAGs
  // run their stages of one kind one profile at a time.
  std::array<int, kNumSlotKinds> rank = {3, 3};
  bool reduce_left = false;
  uint32_t reduce_stage = UINT32_MAX;
  uint32_t maps_ready = 0;
  auto consider = [&](SlotKind kind, int r, uint32_t s) {
    const int k = static_cast<int>(kind);
    if (r >= rank[k]) return;
    rank[k] = r;
    (kind == SlotKind::kMap ? d.map_profile : d.reduce_profile) = view.demand(s);
    if (kind == SlotKind::kReduce) reduce_stage = s;
  };
  for (uint32_t s = 0; s < view.num_stages(); ++s) {
    const StageProgress& sp = view.stage_progress(s);
    const uint32_t unfinished = view.stage_tasks(s) - std::min(view.stage_tasks(s), sp.done);
    if (unfinished == 0) continue;
    const SlotKind kind = StageSlotKind(view, s);
    if (kind == SlotKind::kMap) {
      d.s_pend += unfinished;
      maps_ready += sp.ready;
    } else {
      // "Reduce tasks pending execution" (§3.2) are those that could run:
      // ready or running. Reducers still blocked behind a barrier are not
      // counted, or every job in its map phase would carry u^R = -1 that no
      // placement can lift (the paper's reducers start at slow start).
      d.r_placeable += sp.ready + sp.running;
      reduce_left = true;
    }
    consider(kind, sp.ready > 0 ? 0 : sp.running > 0 ? 1 : 2, s);
  }
  const double map_us = MeanLength(job, SlotKind::kMap).value_or(0);
  if (reduce_stage != UINT32_MAX) {
    // A reducer's slot follows its phase (§3.1, §3.6): the shuffle profile,
    // whose I/O is per map placed up to parallel_copies copies at once, until
    // line 26 (every remaining map placed and the maps end within the cycle);
    // then the reduce profile. Without a shuffle phase both are its demand.
    const ReduceProfiles p = ProfilesOf(view, reduce_stage);
    const bool switching = maps_ready == 0 && map_us <= static_cast<double>(config_.period_us);
    if (switching) {
      d.reduce_profile = p.reduce;
    } else {
      d.reduce_profile = p.shuffle;
      const uint32_t copies = std::max<uint32_t>(1, config_.parallel_copies);
      const double scale = static_cast<double>(std::min(slots_.of_job(job, SlotKind::kMap), copies)) / copies;
      for (Resource r : {kDisk, kNet}) {
        d.reduce_profile.set_micro(r, std::llround(static_cast<double>(p.shuffle.micro(r)) * scale));
      }
    }
  }
  const double reduce_us = MeanLength(job, SlotKind::kReduce).value_or(0);
  const std::optional<TimeUs> deadline = view.deadline();
  const double left_us =
      deadline ? static_cast<double>(view.arrival() + *deadline - ctx_.Now()) : 0.0;  // none: as soon as possible
  d.r_pend = d.r_placeable;
  d.s_req = RequiredMapSlots(d.s_pend, map_us, reduce_left ? reduce_us : 0, left_us);
  return d;
}

void RasScheduler::Cycle() {
  planned_jobs_.clear();
  for (JobId j : ctx_.active_jobs()) {
    if (books_.contains(j.value())) planned_jobs_.push_back(j);
  }
  std::vector<PlacementJob> jobs;
  jobs.reserve(planned_jobs_.size());
  for (JobId j : planned_jobs_) jobs.push_back(Describe(j));
  stages_by_kind_.assign(planned_jobs_.size(), {});
  for (size_t i = 0; i < planned_jobs_.size(); ++i) {
    const JobView view = ctx_.job(planned_jobs_[i]);
    for (uint32_t s = 0; s < view.num_stages(); ++s) {
      stages_by_kind_[i][static_cast<size_t>(StageSlotKind(view, s))].push_back(s);
    }
  }

  const ClusterState& cluster = ctx_.cluster();
  std::vector<Resources> capacity(cluster.size());
  std::vector<bool> up(cluster.size());
  std::vector<Resources> reserved(cluster.size());
  Placement current(planned_jobs_.size(), cluster.size());
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    capacity[m] = cluster.capacity(MachineId(m));
    up[m] = cluster.up(MachineId(m));
    reserved[m] = cluster.allocated(MachineId(m));
  }
  // The placement running now, read from where tasks run rather than asked
  // of every (job, machine) pair.
  absl::flat_hash_map<uint32_t, uint32_t> index_of;
  for (uint32_t i = 0; i < planned_jobs_.size(); ++i) index_of[planned_jobs_[i].value()] = i;
  slots_.ForEachPlaced([&](JobId job, MachineId m, SlotKind kind, uint32_t count) {
    auto it = index_of.find(job.value());
    if (it == index_of.end()) return;
    current.Set(kind, it->second, m.value(), count);
  });
  placement_ = Place(jobs, capacity, reserved, up, std::move(current), config_.max_rounds);
  serving_.clear();
  for (uint32_t m = 0; m < cluster.size(); ++m) {
    if (!placement_.On(m).empty()) serving_.push_back(MachineId(m));
  }
  utility_.resize(planned_jobs_.size());
  for (size_t i = 0; i < planned_jobs_.size(); ++i) {
    utility_[i] = Utility(jobs[i], placement_, i);
    ctx_.Record("utility", planned_jobs_[i], utility_[i]);
  }
  for (MachineId m : serving_) Serve(m);
  if (!books_.empty() && cycle_timer_ == TimerId::kNone) cycle_timer_ = ctx_.SetTimer(config_.period_us, kCycleTag);
}

void RasScheduler::Serve(MachineId m) {
  if (!ctx_.cluster().up(m) || planned_jobs_.empty()) return;
  // Candidates: (job index, kind) running fewer tasks on m than planned;
  // reducers first, then lowest utility first (§3.5), ties by arrival. The
  // placement lists only the jobs it puts on m, by index.
  struct Want {
    size_t job;
    SlotKind kind;
    uint32_t planned;
  };
  std::vector<Want> wants;
  for (const Placement::Cell& c : placement_.On(m.value())) {
    for (SlotKind kind : {SlotKind::kReduce, SlotKind::kMap}) {
      const uint32_t planned = c.count(kind);
      if (planned > 0 && planned > slots_.of_job_on(planned_jobs_[c.job], m, kind)) {
        wants.push_back({c.job, kind, planned});
      }
    }
  }
  std::stable_sort(wants.begin(), wants.end(), [&](const Want& a, const Want& b) {
    if (a.kind != b.kind) return a.kind == SlotKind::kReduce;
    return utility_[a.job] < utility_[b.job];
  });
  for (const Want& w : wants) {
    const JobId job = planned_jobs_[w.job];
    const JobView view = ctx_.job(job);
    for (const uint32_t s : stages_by_kind_[w.job][static_cast<size_t>(w.kind)]) {
      const GroupId group{job, s};
      while (pool_.count(group) > 0 && w.planned > slots_.of_job_on(job, m, w.kind)) {
        // Never beyond the machine's capacity: wait for running tasks to end.
        const TaskRef task = pool_.Front(group);
        if (!ctx_.cluster().Fits(m, LaunchDemand(view, task))) break;
        if (!Launch(task, m)) break;
      }
    }
  }
}

}  // namespace weft::policy::ras
