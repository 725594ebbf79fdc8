#include "policy/ursa/placement.h"

#include <algorithm>
#include <limits>

namespace weft::policy::ursa {
namespace {

constexpr Resource kTimed[] = {kCpu, kDisk, kNet};

// The increase of APT_r in units of EPT; infinite when w cannot do r at all.
double Increase(const TaskLoad& t, const WorkerSnapshot& w, Resource r, double ept_s) {
  if (t.whole) {
    const double cap = w.capacity.units(r);
    return cap > 0 ? t.reserve.units(r) / cap : 0;
  }
  if (t.work[r] <= 0) return 0;
  if (w.rate[r] <= 0) return std::numeric_limits<double>::infinity();
  return t.work[r] / w.rate[r] / ept_s;
}

}  // namespace

MonotaskWork Slack(const WorkerSnapshot& w, double ept_s, bool whole) {
  MonotaskWork d{};
  for (Resource r : kTimed) {
    if (whole) {
      const double cap = w.capacity.units(r);
      d[r] = cap > 0 ? std::max(0.0, w.free.units(r) / cap) : 0;
      continue;
    }
    const double apt = r == kCpu && w.idle_cores > 0 ? 0 : w.apt[r];
    d[r] = std::max(0.0, (ept_s - apt) / ept_s);
  }
  d[kMem] = w.mem_capacity_gb > 0 ? std::max(0.0, w.free.units(kMem) / w.mem_capacity_gb) : 0;
  return d;
}

std::optional<double> Score(const TaskLoad& t, const WorkerSnapshot& w, double ept_s) {
  if (!w.up || !t.reserve.FitsIn(w.free)) return std::nullopt;
  const MonotaskWork d = Slack(w, ept_s, t.whole);
  double f = 0;
  for (Resource r : kTimed) {
    const double inc = Increase(t, w, r, ept_s);
    // Its first monotask would wait for r (a whole task that fits never
    // waits). The paper refuses w when any r the task uses has no slack;
    // its later monotasks enter their queues only when the one before ends
    // (t.first), and what those queues will hold then is not known now:
    // refusing for them kept a cpu-then-network stage's cores idle while
    // the network queue drained (58 % cpu against 94 % the other way round,
    // docs/reproductions/ursa.md).
    if (!t.whole && inc > 0 && t.first[r] > 0 && (d[r] <= 0 || w.rate[r] <= 0)) return std::nullopt;
    if (!t.whole && inc > 0 && w.rate[r] <= 0) return std::nullopt;  // w cannot do r at all
    f += d[r] * std::min(inc, d[r]);
  }
  const double inc_mem = w.mem_capacity_gb > 0 ? t.mem_gb / w.mem_capacity_gb : 0;
  f += d[kMem] * std::min(inc_mem, d[kMem]);
  return f;
}

void Assign(const TaskLoad& t, WorkerSnapshot& w) {
  w.free -= t.reserve;
  if (t.whole) return;
  for (Resource r : kTimed) {
    if (t.first[r] > 0 && w.rate[r] > 0) w.apt[r] += t.first[r] / w.rate[r];
  }
  // A task whose first monotask is cpu work takes a core at once (section
  // 4.2.2: APT_cpu is 0 only while a core is idle).
  if (t.first[kCpu] > 0 && w.idle_cores > 0) --w.idle_cores;
}

bool ScoresAlike(const TaskLoad& a, const TaskLoad& b) {
  // A whole task's F reads only its reservation and memory estimate
  // (Increase and the mem term); a monotask's also its work.
  return a.whole == b.whole && a.reserve == b.reserve && a.mem_gb == b.mem_gb &&
         (a.whole || (a.work == b.work && a.first == b.first));
}

bool NoRoomEither(const TaskLoad& b, const TaskLoad& a) {
  // w is a candidate for t when it is up, t's reservation fits its free
  // room, and (a monotask) every resource t has work of has a rate and the
  // resource of its first monotask has slack. b needs at least what a needs
  // in each of these, so it has no more candidates.
  if (a.whole != b.whole || !a.reserve.FitsIn(b.reserve)) return false;
  if (a.whole) return true;
  for (Resource r : kTimed) {
    if (a.work[r] > 0 && !(b.work[r] > 0)) return false;
    if (a.first[r] > 0 && !(b.first[r] > 0)) return false;
  }
  return true;
}

StagePlan StageScore(std::span<const TaskLoad> tasks, std::vector<WorkerSnapshot> workers, double ept_s,
                     double bonus) {
  StagePlan out;
  out.complete = true;
  double sum = 0;
  // Placing tasks only fills the workers, so a task that needs at least what
  // one that found no worker needed finds none either: skip it without a
  // scan (most of a large stage waits in most batches). The last few such
  // tasks are kept.
  constexpr size_t kKeptUnplaceable = 4;
  std::vector<TaskLoad> unplaceable;
  // F(t, w) depends on w and on what ScoresAlike compares of t, and placing
  // a task changes one worker: for a task alike the one before, only that
  // worker is scored again (the same choices as scoring every worker, at a
  // fraction of the Score calls).
  std::vector<std::optional<double>> scores(workers.size());
  const TaskLoad* scored = nullptr;  // the load `scores` hold F for
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t changed = kNone;  // the worker placed on since
  for (uint32_t i = 0; i < tasks.size(); ++i) {
    const TaskLoad& t = tasks[i];
    if (std::any_of(unplaceable.begin(), unplaceable.end(), [&](const TaskLoad& u) { return NoRoomEither(t, u); })) {
      out.complete = false;
      continue;
    }
    if (scored == nullptr || !ScoresAlike(t, *scored)) {
      for (uint32_t w = 0; w < workers.size(); ++w) scores[w] = Score(t, workers[w], ept_s);
      scored = &t;
    } else if (changed != kNone) {
      scores[changed] = Score(t, workers[changed], ept_s);
    }
    changed = kNone;
    std::optional<uint32_t> best;
    double best_f = 0;
    for (uint32_t w = 0; w < workers.size(); ++w) {
      const std::optional<double>& f = scores[w];
      if (f && (!best || *f > best_f)) {
        best = w;
        best_f = *f;
      }
    }
    if (!best) {
      out.complete = false;
      if (unplaceable.size() == kKeptUnplaceable) unplaceable.erase(unplaceable.begin());
      unplaceable.push_back(t);
      continue;
    }
    Assign(t, workers[*best]);
    changed = *best;
    out.plan.emplace_back(i, *best);
    sum += best_f;
  }
  if (!out.plan.empty()) out.score = sum / static_cast<double>(out.plan.size());
  if (out.complete && !out.plan.empty()) out.score += bonus;
  return out;
}

}  // namespace weft::policy::ursa
