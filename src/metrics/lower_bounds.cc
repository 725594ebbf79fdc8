#include "metrics/lower_bounds.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "model/shuffle.h"

namespace weft {
namespace {

// A pipelined edge between one-task stages is a barrier in effect.
bool IsBarrier(const Edge& e, const Stage& child) {
  return e.WaitsForWholeParent() || child.num_tasks == 1;
}

struct StageStats {
  TimeUs min_us = 0;
  TimeUs max_us = 0;
  WorkVector work{};
  TimeUs twork_us = 0;  // the stage's work over C
};

TimeUs PhasedTaskUs(const Stage& s, const Resources& fastest) {
  TimeUs total = 0;
  // A first "shuffle" phase may run during the wait for the parents.
  const bool skip_first = ShufflePhaseFirst(s);
  for (const Phase& p : s.phases) {
    if (skip_first && &p == &s.phases.front()) continue;
    // The engine's own expression for a segment's nominal length on the
    // fastest machine (sim/execution.cc), rounded as the contention model
    // rounds a segment at rate 1 (never above the fixed model's ceil).
    double us = 0;
    if (p.profiled) {
      us = static_cast<double>(p.duration_us);  // its time alone, on any machine
    } else if (p.resource == kCpu) {
      us = p.work * 1e6;
    } else if (fastest.micro(p.resource) > 0) {
      us = p.work / (static_cast<double>(fastest.micro(p.resource)) / kMicroUnits) * 1e6;
    }
    total += std::max<TimeUs>(0, static_cast<TimeUs>(std::ceil(us - 1e-9)));
  }
  return total;
}

std::vector<StageStats> ComputeStageStats(const Job& job, const BoundCapacity& cap) {
  std::vector<StageStats> stats(job.stages.size());
  for (size_t k = 0; k < job.stages.size(); ++k) {
    const Stage& s = job.stages[k];
    StageStats& st = stats[k];
    WorkSum sum_us = 0;
    if (!s.phases.empty() || s.durations_us.empty()) {
      const TimeUs d = s.phases.empty() ? s.duration_us : PhasedTaskUs(s, cap.fastest);
      st.min_us = st.max_us = d;
      sum_us = static_cast<WorkSum>(d) * s.num_tasks;
    } else {
      st.min_us = kTimeInfinite;
      for (TimeUs d : s.durations_us) {
        st.min_us = std::min(st.min_us, d);
        st.max_us = std::max(st.max_us, d);
        sum_us += static_cast<WorkSum>(d);
      }
    }
    if (s.HasProfiledPhases()) {
      // Each phase holds its own demand for at least its duration: the
      // stage's demand (the phases' maximum) for the whole task would
      // overstate the work. A first "shuffle" phase may run before the
      // stage's parents end, so its work is left out of the stage's.
      st.work = {};
      for (const Phase& p : s.phases) {
        if (&p == &s.phases.front() && ShufflePhaseFirst(s)) continue;
        for (int r = 0; r < kNumResources; ++r) {
          st.work[r] += static_cast<WorkSum>(p.duration_us) * s.num_tasks *
                        static_cast<WorkSum>(p.demand.micro(static_cast<Resource>(r)));
        }
      }
    } else if (s.demands.empty()) {
      for (int r = 0; r < kNumResources; ++r) {
        st.work[r] = sum_us * static_cast<WorkSum>(s.demand.micro(static_cast<Resource>(r)));
      }
    } else {
      // Per-task demands: each task's shortest time times its own demand.
      st.work = {};
      for (uint32_t i = 0; i < s.num_tasks; ++i) {
        const TimeUs d = s.phases.empty() ? s.TaskDuration(i) : st.min_us;
        for (int r = 0; r < kNumResources; ++r) {
          st.work[r] += static_cast<WorkSum>(d) * static_cast<WorkSum>(s.demands[i].micro(static_cast<Resource>(r)));
        }
      }
    }
    st.twork_us = WorkBoundUs(st.work, cap.capacity);
  }
  return stats;
}

// Range: the stages at positions [begin, end) of job.topo_order, with the
// edges between them (edges leaving the range are ignored).
struct Range {
  uint32_t begin = 0;
  uint32_t end = 0;
};

class BoundsCalculator {
 public:
  BoundsCalculator(const Job& job, const BoundCapacity& cap)
      : job_(job),
        cap_(cap),
        stats_(ComputeStageStats(job, cap)),
        pos_(job.stages.size()),
        finish_(job.stages.size()),
        prefix_(job.stages.size()),
        suffix_(job.stages.size()),
        task_finish_(job.stages.size()) {
    for (uint32_t k = 0; k < job.topo_order.size(); ++k) pos_[job.topo_order[k]] = k;
  }

  const std::vector<StageStats>& stats() const { return stats_; }
  bool Inside(uint32_t stage, const Range& r) const { return pos_[stage] >= r.begin && pos_[stage] < r.end; }

  // CpLen: the longest task-level path inside the range. Scratch arrays are
  // shared by all ranges (each entry is written before it is read), so the
  // partitions of a long chain cost O(stages) in all, not per partition.
  TimeUs CpLen(const Range& r) {
    std::vector<TimeUs>& finish = finish_;
    std::vector<std::vector<TimeUs>>& task_finish = task_finish_;
    TimeUs longest = 0;
    for (uint32_t k = r.begin; k < r.end; ++k) {
      const uint32_t s = job_.topo_order[k];
      const Stage& st = job_.stages[s];
      TimeUs barrier_start = 0;
      bool pipelined_parent = false;
      for (const Edge& e : st.parents) {
        if (!Inside(e.stage, r)) continue;
        if (IsBarrier(e, st)) {
          barrier_start = std::max(barrier_start, finish[e.stage]);
        } else {
          pipelined_parent = true;
        }
      }
      bool keep_tasks = false;
      for (const Edge& e : st.children) {
        keep_tasks |= Inside(e.stage, r) && !IsBarrier(e, job_.stages[e.stage]);
      }
      if (!pipelined_parent && !keep_tasks) {
        finish[s] = barrier_start + stats_[s].max_us;
      } else {
        std::vector<TimeUs> f(st.num_tasks, barrier_start);
        for (const Edge& e : st.parents) {
          if (!Inside(e.stage, r) || IsBarrier(e, st)) continue;
          const std::vector<TimeUs>& pf = task_finish[e.stage];
          for (uint32_t i = 0; i < st.num_tasks; ++i) f[i] = std::max(f[i], pf[i]);
        }
        const TimeUs phased = st.phases.empty() ? 0 : stats_[s].max_us;
        TimeUs last = 0;
        for (uint32_t i = 0; i < st.num_tasks; ++i) {
          f[i] += st.phases.empty() ? st.TaskDuration(i) : phased;
          last = std::max(last, f[i]);
        }
        finish[s] = last;
        if (keep_tasks) task_finish[s] = std::move(f);
      }
      longest = std::max(longest, finish[s]);
    }
    return longest;
  }

  TimeUs TWork(const Range& r) const {
    WorkVector work{};
    for (uint32_t k = r.begin; k < r.end; ++k) {
      const StageStats& st = stats_[job_.topo_order[k]];
      for (int x = 0; x < kNumResources; ++x) work[x] += st.work[x];
    }
    return WorkBoundUs(work, cap_.capacity);
  }

  // ModCP (1c): prefix[s] = the longest sum of shortest tasks over a path of
  // stages ending just before s; suffix[s] likewise after s.
  TimeUs ModCp(const Range& r) {
    std::vector<TimeUs>& prefix = prefix_;
    std::vector<TimeUs>& suffix = suffix_;
    for (uint32_t k = r.begin; k < r.end; ++k) {
      const uint32_t s = job_.topo_order[k];
      prefix[s] = 0;
      for (const Edge& e : job_.stages[s].parents) {
        if (Inside(e.stage, r)) prefix[s] = std::max(prefix[s], prefix[e.stage] + stats_[e.stage].min_us);
      }
    }
    TimeUs best = 0;
    for (uint32_t k = r.end; k-- > r.begin;) {
      const uint32_t s = job_.topo_order[k];
      suffix[s] = 0;
      for (const Edge& e : job_.stages[s].children) {
        if (Inside(e.stage, r)) suffix[s] = std::max(suffix[s], suffix[e.stage] + stats_[e.stage].min_us);
      }
      const TimeUs own = std::max(stats_[s].twork_us, stats_[s].max_us);
      best = std::max(best, prefix[s] + own + suffix[s]);
    }
    return best;
  }

 private:
  const Job& job_;
  const BoundCapacity& cap_;
  std::vector<StageStats> stats_;
  std::vector<uint32_t> pos_;  // stage -> position in topo_order
  std::vector<TimeUs> finish_, prefix_, suffix_;   // scratch, per stage
  std::vector<std::vector<TimeUs>> task_finish_;  // scratch: per task, for pipelined children
};

}  // namespace

BoundCapacity BoundCapacity::Of(const Cluster& cluster) {
  BoundCapacity cap;
  cap.capacity = cluster.total_capacity();
  for (const Machine& m : cluster.machines()) {
    for (int r = 0; r < kNumResources; ++r) {
      const Resource res = static_cast<Resource>(r);
      cap.fastest.set_micro(res, std::max(cap.fastest.micro(res), m.capacity.micro(res)));
    }
  }
  return cap;
}

TimeUs WorkBoundUs(const WorkVector& work, const Resources& capacity) {
  WorkSum best = 0;
  for (int r = 0; r < kNumResources; ++r) {
    const int64_t c = capacity.micro(static_cast<Resource>(r));
    if (work[r] == 0 || c <= 0) continue;
    const WorkSum cw = static_cast<WorkSum>(c);
    best = std::max(best, (work[r] + cw - 1) / cw);
  }
  return best > static_cast<WorkSum>(kTimeInfinite) ? kTimeInfinite : static_cast<TimeUs>(best);
}

TimeUs MinTaskUs(const Stage& stage, uint32_t i, const Resources& fastest) {
  return stage.phases.empty() ? stage.TaskDuration(i) : PhasedTaskUs(stage, fastest);
}

std::vector<uint32_t> BarrierPartitions(const Job& job) {
  const size_t n = job.stages.size();
  // Distinct neighbours; an edge is a barrier if any of its copies is.
  std::vector<std::vector<std::pair<uint32_t, bool>>> parents(n), children(n);
  for (uint32_t c = 0; c < n; ++c) {
    auto& ps = parents[c];
    for (const Edge& e : job.stages[c].parents) ps.emplace_back(e.stage, IsBarrier(e, job.stages[c]));
    std::sort(ps.begin(), ps.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    ps.erase(std::unique(ps.begin(), ps.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             ps.end());
    for (const auto& [p, barrier] : ps) children[p].emplace_back(c, barrier);
  }
  // Sweep the topological order, moving one stage at a time into the prefix.
  // good = barrier edges from a maximal prefix stage (no children in the
  // prefix) to a minimal rest stage (no parents in the rest); the prefix is a
  // cut iff good == maximal x minimal.
  std::vector<uint32_t> children_in(n, 0), parents_in(n, 0);
  std::vector<bool> is_max(n, false), is_min(n, false);
  int64_t max_count = 0, min_count = 0, good = 0;
  for (uint32_t s = 0; s < n; ++s) {
    if (parents[s].empty()) {
      is_min[s] = true;
      ++min_count;
    }
  }
  std::vector<uint32_t> starts = {0};
  for (uint32_t k = 0; k + 1 < n; ++k) {
    const uint32_t v = job.topo_order[k];
    is_min[v] = false;
    --min_count;
    for (const auto& [p, barrier] : parents[v]) {
      if (barrier && is_max[p]) --good;
    }
    for (const auto& [p, barrier] : parents[v]) {
      if (children_in[p]++ == 0) {
        is_max[p] = false;
        --max_count;
        for (const auto& [c, b] : children[p]) {
          if (b && is_min[c]) --good;
        }
      }
    }
    is_max[v] = true;
    ++max_count;
    for (const auto& [c, barrier] : children[v]) {
      if (++parents_in[c] == parents[c].size()) {
        is_min[c] = true;
        ++min_count;
        for (const auto& [p, b] : parents[c]) {
          if (b && is_max[p]) ++good;
        }
      }
    }
    if (good == max_count * min_count) starts.push_back(k + 1);
  }
  return starts;
}

JobBounds ComputeJobBounds(const Job& job, const BoundCapacity& cap) {
  JobBounds b;
  BoundsCalculator calc(job, cap);
  const uint32_t n = static_cast<uint32_t>(job.topo_order.size());
  const Range all{0, n};
  b.cplen_us = calc.CpLen(all);
  b.twork_us = calc.TWork(all);
  b.modcp_us = calc.ModCp(all);
  for (const StageStats& st : calc.stats()) {
    for (int r = 0; r < kNumResources; ++r) b.work[r] += st.work[r];
  }
  const std::vector<uint32_t> starts = BarrierPartitions(job);
  b.partitions = static_cast<uint32_t>(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    const Range part{starts[i], i + 1 < starts.size() ? starts[i + 1] : n};
    if (starts.size() == 1) {
      b.newlb_us = std::max({b.cplen_us, b.twork_us, b.modcp_us});
      break;
    }
    b.newlb_us += std::max({calc.CpLen(part), calc.TWork(part), calc.ModCp(part)});
  }
  return b;
}

void WorkloadBound::Add(const Job& job, const JobBounds& bounds) {
  for (int r = 0; r < kNumResources; ++r) work_[r] += bounds.work[r];
  first_arrival_us_ = std::min(first_arrival_us_, job.arrival_us);
  last_bound_end_us_ = std::max(last_bound_end_us_, job.arrival_us + bounds.newlb_us);
}

TimeUs WorkloadBound::MakespanLowerBoundUs() const {
  if (first_arrival_us_ == kTimeInfinite) return 0;
  return std::max(last_bound_end_us_ - first_arrival_us_, WorkBoundUs(work_, capacity_));
}

}  // namespace weft
