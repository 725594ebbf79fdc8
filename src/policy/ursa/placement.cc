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
    // A monotask would wait for r (a whole task that fits never waits).
    if (!t.whole && inc > 0 && (d[r] <= 0 || w.rate[r] <= 0)) return std::nullopt;
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
    if (t.work[r] > 0 && w.rate[r] > 0) w.apt[r] += t.work[r] / w.rate[r];
  }
  // A task with cpu work will take a core (section 4.2.2: APT_cpu is 0 only
  // while a core is idle).
  if (t.work[kCpu] > 0 && w.idle_cores > 0) --w.idle_cores;
}

StagePlan StageScore(std::span<const TaskLoad> tasks, std::vector<WorkerSnapshot> workers, double ept_s,
                     double bonus) {
  StagePlan out;
  out.complete = true;
  double sum = 0;
  // Placing tasks only fills the workers, so a task like one that found no
  // worker finds none either: skip it without a scan (stages are mostly
  // alike, and most of a large stage waits in most batches).
  std::optional<TaskLoad> unplaceable;
  for (uint32_t i = 0; i < tasks.size(); ++i) {
    if (unplaceable && tasks[i] == *unplaceable) {
      out.complete = false;
      continue;
    }
    std::optional<uint32_t> best;
    double best_f = 0;
    for (uint32_t w = 0; w < workers.size(); ++w) {
      const std::optional<double> f = Score(tasks[i], workers[w], ept_s);
      if (f && (!best || *f > best_f)) {
        best = w;
        best_f = *f;
      }
    }
    if (!best) {
      out.complete = false;
      unplaceable = tasks[i];
      continue;
    }
    Assign(tasks[i], workers[*best]);
    out.plan.emplace_back(i, *best);
    sum += best_f;
  }
  if (!out.plan.empty()) out.score = sum / static_cast<double>(out.plan.size());
  if (out.complete && !out.plan.empty()) out.score += bonus;
  return out;
}

}  // namespace weft::policy::ursa
