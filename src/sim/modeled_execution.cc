// The simulator's execution models: segments, shares, rates and the
// integration of what attempts use and hold (sim/modeled_execution.h).
#include "sim/modeled_execution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace weft::sim {

namespace {
constexpr Resource kSharedResources[] = {kCpu, kDisk, kNet};


int64_t Scaled(int64_t micro, double factor) {
  return factor == 1.0 ? micro : std::llround(static_cast<double>(micro) * factor);
}
}  // namespace

ModeledExecution::ModeledExecution(const Workload& workload, const policy::ClusterState& cluster, EventQueue& queue,
                                   ExecutionHost& host, Rng failure_rng, double task_failure_prob,
                                   const MachineProfile& profile)
    : w_(workload),
      cluster_(cluster),
      queue_(queue),
      host_(host),
      failure_rng_(std::move(failure_rng)),
      task_failure_prob_(task_failure_prob),
      profile_(profile),
      on_machine_(workload.cluster.size()),
      wanted_(workload.cluster.size()),
      was_over_(workload.cluster.size(), false),
      paging_rate_(workload.cluster.size(), 1.0),
      activity_cap_(workload.cluster.size(), 1.0) {
  for (size_t m = 0; m < workload.cluster.size(); ++m) {
    for (Resource r : kSharedResources) {
      sharing_.AddConstraint(static_cast<double>(cluster_.capacity(MachineId(static_cast<uint32_t>(m))).micro(r)));
    }
  }
}

double ModeledExecution::NominalSegmentUs(const Work& w, const Stage& st, uint32_t index) const {
  if (!w.phased) return static_cast<double>(st.TaskDuration(index));
  const Phase& p = st.phases[w.phase];
  if (p.profiled) return static_cast<double>(p.duration_us);
  // cpu work is core-seconds on one core; disk and net work are MB at the
  // machine's full bandwidth. A task's `durations` entry scales its phases.
  const double alone_us = p.resource == kCpu ? p.work * 1e6 : p.work / cluster_.capacity(w.machine).units(p.resource) * 1e6;
  return w.factor == 1.0 ? alone_us : alone_us * w.factor;
}

void ModeledExecution::Begin(uint32_t slot, const ExecutionAttempt& attempt) {
  // Only up to this slot: the vector's capacity grows geometrically anyway,
  // and a Work built ahead of need is a few hundred bytes set for nothing.
  if (slot >= work_.size()) work_.resize(slot + 1);
  Work& w = work_[slot];
  const Stage& st = w_.jobs[attempt.task.job.value()].stages[attempt.task.stage];
  // Field by field rather than `w = Work()`: a fresh Work is a few hundred
  // bytes, per task. The areas need no reset: the first change sets them.
  w.active = true;
  w.running = false;
  w.doomed = false;
  w.changed = false;
  w.fail_phase = 0;
  w.phase = 0;
  w.version = 0;
  w.factor = 1;
  w.rate = 1;
  w.remaining_us = 0;
  w.want = Resources();
  w.use = Resources();
  w.peak = Resources();
  w.segment_held_area = 0;
  w.phased = !st.phases.empty();
  w.profiled = st.HasProfiledPhases();
  w.generation = attempt.generation;
  w.machine = attempt.machine;
  w.launch_order = attempt.launch_order;
  w.begin_order = begin_counter_++;
  w.demand = attempt.demand;
  w.usage = attempt.usage;
  w.begin_us = w.last_update_us = w.area_until_us = queue_.now();
  if (w.phased && !st.durations_us.empty() && st.duration_us > 0) {
    w.factor = static_cast<double>(st.TaskDuration(attempt.task.index)) / static_cast<double>(st.duration_us);
  }
  if (task_failure_prob_ > 0 && failure_rng_.Bernoulli(task_failure_prob_)) {
    w.doomed = true;
    w.fail_phase = w.phased ? static_cast<uint16_t>(failure_rng_.UniformInt(st.phases.size())) : 0;
  }
  auto& list = on_machine_[w.machine.value()];
  if (list.empty() || work_[list.back()].launch_order < w.launch_order) {
    list.push_back(slot);  // the common case: launched after every attempt begun on the machine
  } else {
    auto pos = std::upper_bound(list.begin(), list.end(), w.launch_order,
                                [&](uint64_t order, uint32_t s) { return order < work_[s].launch_order; });
    list.insert(pos, slot);
  }
  if (w.profiled) {
    // It holds phase 0's demand and uses its memory until the phase runs
    // (at once, or after the edge's shuffle); it may reserve more
    // (model/shuffle.h, PhaseReservation).
    w.demand = st.phases.front().demand;
    w.usage = st.phases.front().usage;
    Resources use;
    use.set_micro(kMem, w.usage.micro(kMem));
    SetUse(slot, w, use, w.demand);
    w.changed = false;
  } else if (w.phased) {
    // From its start a task with phases holds and uses its memory; its
    // phases' resources come and go with the phases.
    Resources hold;
    hold.set_micro(kMem, w.demand.micro(kMem));
    Resources use;
    use.set_micro(kMem, w.usage.micro(kMem));
    SetUse(slot, w, use, hold);
    w.changed = false;
  } else {
    w.hold = w.demand;  // its use starts with its only segment, at once
  }
  host_.BeginSegments(slot);
  // Memory beyond capacity is charged under contention only: the fixed
  // model idealizes a task as running for its duration, whatever shares its
  // machine.
  // (`attempt` is the engine's record, which BeginSegments may have freed:
  // what this attempt was is read from w.)
  if (Contended() && w.active) {
    const MachineId m = w.machine;
    EnforceMemory(m);
    RefreshPaging(m);
  }
}

void ModeledExecution::RunSegment(uint32_t slot, const ExecutionAttempt& attempt) {
  Work& w = work_[slot];
  const Stage& st = w_.jobs[attempt.task.job.value()].stages[attempt.task.stage];
  const TimeUs now = queue_.now();
  Integrate(w, now);
  w.phase = attempt.phase;
  w.running = true;
  w.remaining_us = NominalSegmentUs(w, st, attempt.task.index);
  if (w.doomed && !w.phased) w.remaining_us = std::max(1.0, std::floor(w.remaining_us * failure_rng_.Uniform()));
  w.want = Resources();
  if (w.profiled) {
    w.demand = st.phases[w.phase].demand;
    w.usage = st.phases[w.phase].usage;
  }
  if (!w.phased || w.profiled) {
    for (Resource r : kSharedResources) w.want.set_micro(r, w.usage.micro(r));
  } else {
    const Resource r = st.phases[w.phase].resource;
    w.want.set_micro(r, r == kCpu ? kMicroUnits : cluster_.capacity(w.machine).micro(r));
  }
  w.last_update_us = now;
  w.segment_start_us = now;
  w.segment_held_area = 0;
  w.rate = 1;
  wanted_[w.machine.value()] += w.want;
  const bool contended = Contended();
  if (!contended) {
    // At rate 1 until its machine is oversubscribed (Recompute then moves it).
    w.planned_end_us = now + static_cast<TimeUs>(std::ceil(w.remaining_us));
    queue_.Push(Event{.time = w.planned_end_us, .type = EventType::kSegmentEnd, .a = slot, .b = w.generation,
                      .c = ++w.version});
  } else {
    w.planned_end_us = -1;  // Recompute sets it
  }
  const MachineId m = w.machine;
  // A whole task that starts its segment as it begins uses the same from its
  // start: its account needs no integration until its machine's rates move.
  // One that waited first (a remote read, a shuffle) used less meanwhile,
  // which its account must integrate.
  const bool from_begin = !w.phased && now == w.begin_us;
  const bool at_full_speed = !contended && !w.phased && !was_over_[m.value()] && !Oversubscribed(m);
  if (at_full_speed && from_begin) {
    // The common case, kept cheap: a whole task in the fixed model on a
    // machine with room uses its usage vector until it ends.
    host_.UsageChanged(slot, w.use, w.usage);
    w.use = w.usage;
  } else if (at_full_speed) {
    SetUse(slot, w, w.usage, w.hold);
  } else {
    Recompute(m, slot);
  }
  if (from_begin) work_[slot].changed = false;
  // A profiled phase may use more memory than the last: charged under
  // contention only, as at Begin.
  if (w.profiled && Contended() && w.active) {
    EnforceMemory(m);
    RefreshPaging(m);
  }
}

void ModeledExecution::OnSegmentEvent(const Event& e) {
  if (e.a >= work_.size()) return;
  Work& w = work_[e.a];
  if (!w.active || w.generation != e.b || w.version != e.c || !w.running) return;  // stale
  const uint32_t slot = static_cast<uint32_t>(e.a);
  if (!w.phased) {
    // A whole task's only segment: its end is the attempt's end, and End
    // releases the machine (the same work, done once).
    w.remaining_us = 0;
    return w.doomed ? host_.AttemptDone(slot, Outcome::kFailed) : host_.SegmentDone(slot);
  }
  Integrate(w, queue_.now());
  w.running = false;
  w.remaining_us = 0;
  wanted_[w.machine.value()] -= w.want;
  LeaveSharing(w);
  w.want = Resources();
  if (w.phased) ReportPhase(slot, w, /*completed=*/true);
  Recompute(w.machine, slot);
  if (w.doomed && (!w.phased || w.phase == w.fail_phase)) return host_.AttemptDone(slot, Outcome::kFailed);
  host_.SegmentDone(slot);
}

AttemptAccount ModeledExecution::End(uint32_t slot, const ExecutionAttempt& /*attempt*/) {
  AttemptAccount account;
  if (slot >= work_.size() || !work_[slot].active) return account;  // never reached its machine
  Work& w = work_[slot];
  const TimeUs now = queue_.now();
  Integrate(w, now);
  const bool was_running = w.running;
  if (was_running) {
    wanted_[w.machine.value()] -= w.want;
    LeaveSharing(w);
    // A whole task ends with its segment; a phase cut short is reported.
    if (w.phased) ReportPhase(slot, w, /*completed=*/false);
  }
  const TimeUs duration = now - w.begin_us;
  account.usage.peak = w.changed && duration > 0 ? w.peak : w.use;
  if (!w.changed || duration <= 0) {
    account.usage.average = w.use;
    if (w.phased) account.held = w.hold;
  } else {
    Resources held;
    for (int k = 0; k < kNumResources; ++k) {
      const auto r = static_cast<Resource>(k);
      account.usage.average.set_micro(r, std::llround(w.used_area[k] / static_cast<double>(duration)));
      held.set_micro(r, std::llround(w.held_area[k] / static_cast<double>(duration)));
    }
    if (w.phased) account.held = held;
  }
  host_.UsageChanged(slot, w.use, Resources());
  w.active = false;
  w.running = false;
  auto& list = on_machine_[w.machine.value()];
  list.erase(std::find(list.begin(), list.end(), slot));
  if (was_running && (Contended() || was_over_[w.machine.value()])) {
    Recompute(w.machine, UINT32_MAX);
  } else if (Contended()) {
    RefreshPaging(w.machine);  // its memory is free now
  }
  return account;
}

void ModeledExecution::Integrate(Work& w, TimeUs now) {
  // Until its use or holding first changes, an attempt's account is its
  // constant use: nothing to integrate (the common case, kept cheap).
  if (!w.changed) return;
  const TimeUs dt = now - w.area_until_us;
  if (dt <= 0) return;
  const auto span = static_cast<double>(dt);
  // The peak is the most the attempt used for a while, not at an instant
  // (launches at one instant pass through momentary shares).
  for (int k = 0; k < kNumResources; ++k) {
    const auto r = static_cast<Resource>(k);
    w.peak.set_micro(r, std::max(w.peak.micro(r), w.use.micro(r)));
  }
  for (int k = 0; k < kNumResources; ++k) {
    w.used_area[k] += static_cast<double>(w.use.micro(static_cast<Resource>(k))) * span;
    w.held_area[k] += static_cast<double>(w.hold.micro(static_cast<Resource>(k))) * span;
  }
  if (w.running && w.profiled) {
    w.segment_held_area += static_cast<double>(w.hold.micro(kCpu)) * span;  // phases.csv: cores held
  } else if (w.running && w.phased) {
    for (Resource r : kSharedResources) {
      if (w.want.micro(r) > 0) w.segment_held_area += static_cast<double>(w.hold.micro(r)) * span;
    }
  }
  w.area_until_us = now;
}

bool ModeledExecution::Oversubscribed(MachineId m) const {
  if (paging_rate_[m.value()] < 1) return true;  // every task on it is slowed
  const Resources& cap = cluster_.capacity(m);
  for (Resource r : kSharedResources) {
    if (wanted_[m.value()].micro(r) > cap.micro(r)) return true;
  }
  return false;
}

void ModeledExecution::Recompute(MachineId m, uint32_t changed) {
  const TimeUs now = queue_.now();
  const auto& list = on_machine_[m.value()];
  paging_rate_[m.value()] = PagingRate(m);
  // While nothing on m is oversubscribed, every rate is 1 and, in the fixed
  // model, only the attempt that changed needs its use updated; otherwise
  // (and always under contention) every running segment's rate and use move.
  const bool over = Oversubscribed(m);
  const bool all = Contended() || over || was_over_[m.value()];
  if (all) {
    // Progress so far at the old rates, before the rates move.
    for (uint32_t slot : list) {
      Work& w = work_[slot];
      if (!w.running) continue;
      w.remaining_us = std::max(0.0, w.remaining_us - static_cast<double>(now - w.last_update_us) * w.rate);
      w.last_update_us = now;
    }
    if (over) {
      ShareOut(m);
    } else {
      for (uint32_t slot : list) work_[slot].rate = 1;
    }
    for (uint32_t slot : list) Update(slot, now, /*reschedule=*/true);
  } else if (changed != UINT32_MAX && work_[changed].active) {
    Update(changed, now, /*reschedule=*/false);  // at rate 1, its end is where RunSegment put it
  }
  was_over_[m.value()] = over;
}

void ModeledExecution::ChargeOvercommit(MachineId m, uint32_t first_constraint) {
  const double cpu_loss = profile_.cpu_oversubscription_loss;
  const double disk_loss = profile_.disk_stream_loss;
  if (cpu_loss == 0 && disk_loss == 0) return;
  const Resources& cap = cluster_.capacity(m);
  const Resources& wanted = wanted_[m.value()];
  for (size_t k = 0; k < std::size(kSharedResources); ++k) {
    const Resource r = kSharedResources[k];
    const auto capacity = static_cast<double>(cap.micro(r));
    double efficiency = 1;
    if (r == kCpu && cpu_loss > 0 && capacity > 0) {
      // k = wanted / capacity runnable cores per core: C / (1 + loss (k - 1)).
      const double over = static_cast<double>(wanted.micro(r)) / capacity;
      efficiency = 1 / (1 + cpu_loss * std::max(0.0, over - 1));
    } else if (r == kDisk && disk_loss > 0 && wanted.micro(r) > cap.micro(r)) {
      // s streams on a disk asked for more than it has: B / (1 + loss (s - 1)).
      double streams = 0;
      for (uint32_t slot : on_machine_[m.value()]) streams += work_[slot].running && work_[slot].want.micro(r) > 0;
      efficiency = 1 / (1 + disk_loss * std::max(0.0, streams - 1));
    }
    sharing_.SetCapacity(first_constraint + static_cast<uint32_t>(k), capacity * efficiency);
  }
}

void ModeledExecution::ShareOut(MachineId m) {
  const Resources& cap = cluster_.capacity(m);
  const auto& list = on_machine_[m.value()];
  const uint32_t first_constraint = m.value() * static_cast<uint32_t>(std::size(kSharedResources));
  // Paging caps every task on the machine at the paging rate (1 without):
  // a task waiting for its pages runs slower whatever it is given.
  const double paging = paging_rate_[m.value()];
  if (activity_cap_[m.value()] != paging) {
    activity_cap_[m.value()] = paging;
    for (uint32_t slot : list) {
      if (work_[slot].activity != kNoActivity) sharing_.SetCap(work_[slot].activity, paging);
    }
  }
  for (uint32_t slot : list) {
    Work& w = work_[slot];
    if (!w.running || w.activity != kNoActivity) continue;
    // Coefficients: what one unit of progress rate takes of each resource.
    // The weight makes progressive filling raise every segment's dominant
    // share (want / capacity in its most wanted resource) equally; on one
    // resource that is max-min fairness in the resource itself.
    std::array<MaxMinSharing::Use, std::size(kSharedResources)> uses;
    size_t n = 0;
    double dominant = 0;
    for (size_t k = 0; k < std::size(kSharedResources); ++k) {
      const Resource r = kSharedResources[k];
      const int64_t want = w.want.micro(r);
      if (want <= 0) continue;
      uses[n++] = MaxMinSharing::Use{first_constraint + static_cast<uint32_t>(k), static_cast<double>(want)};
      dominant = cap.micro(r) > 0 ? std::max(dominant, static_cast<double>(want) / static_cast<double>(cap.micro(r)))
                                  : std::numeric_limits<double>::infinity();
    }
    if (n == 0) continue;  // wants no shared resource: never slowed
    const double weight = std::isfinite(dominant) ? 1.0 / dominant : 1.0;
    w.activity = sharing_.AddActivity(weight, paging, std::span(uses.data(), n));
  }
  ChargeOvercommit(m, first_constraint);
  sharing_.Solve();
  for (uint32_t slot : list) {
    Work& w = work_[slot];
    if (!w.running) continue;
    // A segment on a resource of capacity 0 would never end: the floor keeps
    // its end finite (a policy does not place work there).
    w.rate = w.activity == kNoActivity ? paging : std::max(sharing_.rate(w.activity), 1e-9);
  }
}

void ModeledExecution::LeaveSharing(Work& w) {
  if (w.activity == kNoActivity) return;
  sharing_.RemoveActivity(w.activity);
  w.activity = kNoActivity;
}

void ModeledExecution::Update(uint32_t slot, TimeUs now, bool reschedule) {
  Work& w = work_[slot];
  if (reschedule && w.running) {
    const TimeUs end = now + static_cast<TimeUs>(std::ceil(w.remaining_us / w.rate - 1e-9));
    if (end != w.planned_end_us) {
      w.planned_end_us = end;
      queue_.Push(Event{.time = end, .type = EventType::kSegmentEnd, .a = slot, .b = w.generation, .c = ++w.version});
    }
  }
  Resources use;
  use.set_micro(kMem, w.usage.micro(kMem));
  Resources hold = w.phased && !w.profiled ? Resources() : w.demand;
  hold.set_micro(kMem, w.demand.micro(kMem));
  if (w.running) {
    // A segment uses what its rate takes of each resource it wants; a phase
    // holds it too (a whole task holds its reservation).
    for (Resource r : kSharedResources) {
      if (w.want.micro(r) == 0) continue;
      use.set_micro(r, Scaled(w.want.micro(r), w.rate));
      if (w.phased && !w.profiled) hold.set_micro(r, Scaled(w.want.micro(r), w.rate));
    }
  }
  SetUse(slot, w, use, hold);
}

void ModeledExecution::SetUse(uint32_t slot, Work& w, const Resources& use, const Resources& hold) {
  const TimeUs now = queue_.now();
  if (!w.changed && (use != w.use || hold != w.hold)) {
    // The first change: what was constant since Begin becomes the areas.
    const auto span = static_cast<double>(now - w.begin_us);
    if (now > w.begin_us) w.peak = w.use;
    for (int k = 0; k < kNumResources; ++k) {
      w.used_area[k] = static_cast<double>(w.use.micro(static_cast<Resource>(k))) * span;
      w.held_area[k] = static_cast<double>(w.hold.micro(static_cast<Resource>(k))) * span;
    }
    w.area_until_us = now;
  }
  Integrate(w, now);
  if (use != w.use) {
    host_.UsageChanged(slot, w.use, use);
    w.use = use;
    w.changed = true;
  }
  if (hold != w.hold) {
    w.hold = hold;
    w.changed = true;
  }
}

void ModeledExecution::EnforceMemory(MachineId m) {
  // Out-of-memory: kill the newest attempts until the rest fit in memory and
  // swap, as an OOM killer would. The kills count as failures of those tasks.
  const int64_t limit = cluster_.capacity(m).micro(kMem) + w_.cluster.machine(m).swap_micro;
  while (cluster_.used(m).micro(kMem) > limit) {
    uint32_t newest = UINT32_MAX;
    for (uint32_t slot : on_machine_[m.value()]) {
      if (newest == UINT32_MAX || work_[slot].begin_order > work_[newest].begin_order) newest = slot;
    }
    if (newest == UINT32_MAX) return;
    host_.AttemptDone(newest, Outcome::kFailed);
  }
}

double ModeledExecution::PagingRate(MachineId m) const {
  if (!Contended() || profile_.paging_slowdown <= 0) return 1;
  const auto used = static_cast<double>(cluster_.used(m).micro(kMem));
  const auto capacity = static_cast<double>(cluster_.capacity(m).micro(kMem));
  if (used <= capacity) return 1;
  // The share of the memory in use that is paged out, (U - M) / U: with
  // accesses spread evenly over it, the share of accesses that fault.
  return 1 / (1 + profile_.paging_slowdown * (used - capacity) / used);
}

void ModeledExecution::RefreshPaging(MachineId m) {
  if (PagingRate(m) != paging_rate_[m.value()]) Recompute(m, UINT32_MAX);
}

void ModeledExecution::ReportPhase(uint32_t slot, Work& w, bool completed) {
  const TimeUs span = queue_.now() - w.segment_start_us;
  double held = 0;
  if (span > 0) {
    held = w.segment_held_area / static_cast<double>(span) / static_cast<double>(kMicroUnits);
  } else if (w.profiled) {
    held = static_cast<double>(w.hold.micro(kCpu)) / kMicroUnits;
  } else {
    for (Resource r : kSharedResources) held += static_cast<double>(w.hold.micro(r)) / kMicroUnits;
  }
  host_.PhaseEnded(slot, w.phase, w.segment_start_us, held, completed);
}

}  // namespace weft::sim
