#include "metrics/exact_solver.h"

#include <algorithm>
#include <array>

#include "fmt/format.h"
#include "model/shuffle.h"

namespace weft {
namespace {

struct Running {
  uint32_t task;
  uint32_t machine;
  TimeUs end;
};

class Search {
 public:
  Search(const ExactProblem& p, uint64_t max_nodes) : p_(p), max_nodes_(max_nodes), n_(p.tasks.size()) {
    children_.resize(n_);
    for (uint32_t i = 0; i < n_; ++i) {
      for (uint32_t q : p.tasks[i].parents) children_[q].push_back(i);
    }
    tail_.assign(n_, 0);
    for (uint32_t i = n_; i-- > 0;) {
      TimeUs longest = 0;
      for (uint32_t c : children_[i]) longest = std::max(longest, tail_[c]);
      tail_[i] = p.tasks[i].duration_us + longest;
    }
    for (const Resources& m : p.machines) total_ += m;
    free_ = p.machines;
    start_.assign(n_, -1);
    machine_.assign(n_, 0);
    end_.assign(n_, -1);
  }

  bool Run() {
    Event(0);
    return nodes_ <= max_nodes_;
  }

  ExactSchedule Result() const {
    return ExactSchedule{best_, best_start_, best_machine_, nodes_};
  }

 private:
  // LowerBound: the earliest the unfinished tasks can all end from time `t`.
  TimeUs LowerBound(TimeUs t) const {
    TimeUs lb = t;
    std::vector<TimeUs> est(n_, 0);
    std::array<long double, kNumResources> work{};
    for (uint32_t i = 0; i < n_; ++i) {
      if (start_[i] >= 0) {
        lb = std::max(lb, end_[i]);
        continue;
      }
      TimeUs e = t;
      for (uint32_t q : p_.tasks[i].parents) e = std::max(e, start_[q] >= 0 ? end_[q] : est[q] + p_.tasks[q].duration_us);
      est[i] = e;
      lb = std::max(lb, e + tail_[i]);
      for (int r = 0; r < kNumResources; ++r) {
        work[r] += static_cast<long double>(p_.tasks[i].duration_us) * p_.tasks[i].demand.micro(static_cast<Resource>(r));
      }
    }
    for (const Running& x : running_) {
      for (int r = 0; r < kNumResources; ++r) {
        work[r] += static_cast<long double>(x.end - t) * p_.tasks[x.task].demand.micro(static_cast<Resource>(r));
      }
    }
    for (int r = 0; r < kNumResources; ++r) {
      const int64_t c = total_.micro(static_cast<Resource>(r));
      if (c > 0 && work[r] > 0) lb = std::max(lb, t + static_cast<TimeUs>(work[r] / c - 1e-6L));
    }
    return lb;
  }

  void Event(TimeUs t) {
    if (++nodes_ > max_nodes_) return;
    if (started_ == n_) {
      TimeUs makespan = t;
      for (const Running& x : running_) makespan = std::max(makespan, x.end);
      if (makespan < best_) {
        best_ = makespan;
        best_start_ = start_;
        best_machine_ = machine_;
      }
      return;
    }
    if (LowerBound(t) >= best_) return;
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n_; ++i) {
      if (start_[i] >= 0) continue;
      bool ok = true;
      for (uint32_t q : p_.tasks[i].parents) ok &= start_[q] >= 0 && end_[q] <= t;
      if (ok) ready.push_back(i);
    }
    Choose(t, ready, 0);
  }

  // Choose decides, for ready[j..], whether and where each starts at `t`.
  void Choose(TimeUs t, const std::vector<uint32_t>& ready, size_t j) {
    if (nodes_ > max_nodes_) return;
    if (j == ready.size()) {
      Advance(t);
      return;
    }
    const uint32_t task = ready[j];
    const Resources& d = p_.tasks[task].demand;
    for (uint32_t m = 0; m < p_.machines.size(); ++m) {
      if (!d.FitsIn(free_[m])) continue;
      bool symmetric = false;
      for (uint32_t k = 0; k < m && !symmetric; ++k) {
        symmetric = p_.machines[k] == p_.machines[m] && free_[k] == free_[m];
      }
      if (symmetric) continue;
      free_[m] -= d;
      start_[task] = t;
      end_[task] = t + p_.tasks[task].duration_us;
      machine_[task] = m;
      running_.push_back({task, m, end_[task]});
      ++started_;
      Choose(t, ready, j + 1);
      --started_;
      running_.pop_back();
      start_[task] = -1;
      end_[task] = -1;
      free_[m] += d;
    }
    Choose(t, ready, j + 1);  // or it waits
  }

  // Advance moves to the next end time (nothing running and tasks left: a
  // dead end, since nothing would ever change).
  void Advance(TimeUs t) {
    if (running_.empty()) {
      if (started_ == n_) Event(t);
      return;
    }
    TimeUs next = kTimeInfinite;
    for (const Running& x : running_) next = std::min(next, x.end);
    std::vector<Running> ended;
    std::vector<Running> still;
    for (const Running& x : running_) (x.end == next ? ended : still).push_back(x);
    if (started_ == n_) {
      Event(t);  // the makespan is the last end
      return;
    }
    const std::vector<Running> saved = running_;
    running_ = still;
    for (const Running& x : ended) free_[x.machine] += p_.tasks[x.task].demand;
    Event(next);
    for (const Running& x : ended) free_[x.machine] -= p_.tasks[x.task].demand;
    running_ = saved;
  }

  const ExactProblem& p_;
  const uint64_t max_nodes_;
  const size_t n_;
  std::vector<std::vector<uint32_t>> children_;
  std::vector<TimeUs> tail_;
  Resources total_;
  std::vector<Resources> free_;
  std::vector<TimeUs> start_, end_;
  std::vector<uint32_t> machine_;
  std::vector<Running> running_;
  size_t started_ = 0;
  uint64_t nodes_ = 0;
  TimeUs best_ = kTimeInfinite;
  std::vector<TimeUs> best_start_;
  std::vector<uint32_t> best_machine_;
};

}  // namespace

absl::StatusOr<ExactProblem> ExactProblemOf(const Job& job, const Cluster& cluster) {
  if (job.num_tasks > kMaxExactTasks) {
    return absl::InvalidArgumentError(fmt::format("job has {} tasks; the exact solver takes at most {}",
                                                  job.num_tasks, kMaxExactTasks));
  }
  ExactProblem p;
  for (const Machine& m : cluster.machines()) p.machines.push_back(m.capacity);
  // A task with profiled phases becomes a chain of one instance task per
  // phase (its duration and demand): a relaxation, as the chain's phases may
  // run on different machines, so the optimum stays a lower bound of every
  // run. last(s, i): the instance task that ends task i of stage s.
  std::vector<uint32_t> first(job.stages.size(), 0);
  std::vector<uint32_t> links(job.stages.size(), 1);
  const auto last = [&](uint32_t s, uint32_t i) { return first[s] + i * links[s] + links[s] - 1; };
  for (uint32_t s : job.topo_order) {
    const Stage& st = job.stages[s];
    if (!st.phases.empty() && !st.HasProfiledPhases()) {
      return absl::InvalidArgumentError("the exact solver does not take tasks with resource phases");
    }
    first[s] = static_cast<uint32_t>(p.tasks.size());
    links[s] = st.HasProfiledPhases() ? static_cast<uint32_t>(st.phases.size()) : 1;
    for (uint32_t i = 0; i < st.num_tasks; ++i) {
      ExactTask t{st.TaskDuration(i), st.TaskDemand(i), {}};
      if (st.HasProfiledPhases()) t = ExactTask{st.phases[0].duration_us, st.phases[0].demand, {}};
      // A first "shuffle" phase may run before the parents end: its parents
      // go to the next phase.
      const bool early = ShufflePhaseFirst(st);
      std::vector<uint32_t> parents;
      for (const Edge& e : st.parents) {
        if (e.shuffle_mb > 0) {
          return absl::InvalidArgumentError("the exact solver does not model shuffle copies (shuffle_mb)");
        }
        if (e.kind == EdgeKind::kPipelined) {
          parents.push_back(last(e.stage, i));
        } else {
          for (uint32_t k = 0; k < job.stages[e.stage].num_tasks; ++k) parents.push_back(last(e.stage, k));
        }
      }
      if (!early) t.parents = parents;
      p.tasks.push_back(std::move(t));
      for (uint32_t k = 1; k < links[s]; ++k) {
        ExactTask next{st.phases[k].duration_us, st.phases[k].demand, {static_cast<uint32_t>(p.tasks.size() - 1)}};
        if (early && k == 1) next.parents.insert(next.parents.end(), parents.begin(), parents.end());
        p.tasks.push_back(std::move(next));
      }
    }
  }
  return p;
}

absl::StatusOr<ExactSchedule> SolveExact(const ExactProblem& problem, uint64_t max_nodes) {
  if (problem.tasks.size() > kMaxExactTasks || problem.machines.size() > kMaxExactMachines ||
      problem.machines.empty()) {
    return absl::InvalidArgumentError(fmt::format("instance of {} tasks on {} machines is not tiny",
                                                  problem.tasks.size(), problem.machines.size()));
  }
  for (uint32_t i = 0; i < problem.tasks.size(); ++i) {
    const ExactTask& t = problem.tasks[i];
    bool fits = false;
    for (const Resources& m : problem.machines) fits |= t.demand.FitsIn(m);
    if (!fits) return absl::InvalidArgumentError(fmt::format("task {} fits no machine", i));
    for (uint32_t q : t.parents) {
      if (q >= i) return absl::InvalidArgumentError(fmt::format("task {} has parent {} not before it", i, q));
    }
  }
  Search search(problem, max_nodes);
  if (!search.Run()) {
    return absl::ResourceExhaustedError(fmt::format("no proof of optimality within {} nodes", max_nodes));
  }
  return search.Result();
}

}  // namespace weft
