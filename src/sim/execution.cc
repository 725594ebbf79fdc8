// Running attempts under the execution models. An attempt progresses through
// segments: the whole task, or one phase (monotask) at a time. A segment has
// a nominal length (its time on an idle machine) and progresses at a rate in
// (0, 1]: always 1 in the fixed model; in the contention model, the share of
// its most oversubscribed resource on the machine.
#include <algorithm>
#include <cmath>

#include "sim/engine_impl.h"

namespace weft::sim {

using policy::Address;
using policy::Outcome;
using policy::TaskState;

namespace {
constexpr Resource kSharedResources[] = {kCpu, kDisk, kNet};
}  // namespace

uint32_t EngineCore::NewAttempt() {
  uint32_t slot;
  if (!free_attempts_.empty()) {
    slot = free_attempts_.back();
    free_attempts_.pop_back();
  } else {
    slot = static_cast<uint32_t>(attempts_.size());
    attempts_.emplace_back();
  }
  Attempt& a = attempts_[slot];
  const uint32_t generation = a.generation;
  a = Attempt();
  a.generation = generation;
  a.free = false;
  return slot;
}

double EngineCore::NominalSegmentUs(const Attempt& a) const {
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  if (st.phases.empty()) return static_cast<double>(st.TaskDuration(a.task.index));
  const Phase& p = st.phases[a.phase];
  if (p.resource == kCpu) return p.work * 1e6;  // core-seconds on one core
  return p.work / cluster_.capacity(a.machine).units(p.resource) * 1e6;  // MB at full bandwidth
}

Locality EngineCore::LocalityOf(const Attempt& a) const {
  const auto prefs = w_.jobs[a.task.job.value()].stages[a.task.stage].Preferences(a.task.index);
  if (prefs.empty()) return Locality::kNone;
  const RackId rack = cluster_.rack(a.machine);
  bool same_rack = false;
  for (MachineId p : prefs) {
    if (p == a.machine) return Locality::kNode;
    same_rack |= cluster_.rack(p) == rack;
  }
  return same_rack ? Locality::kRack : Locality::kRemote;
}

void EngineCore::StartAttempt(uint32_t slot) {
  events_since_progress_ = 0;
  Attempt& a = attempts_[slot];
  JobRun& jr = jobs_[a.task.job.value()];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  a.started = true;
  a.start_us = queue_.now();
  a.start_order = start_counter_++;
  if (jr.first_start_us < 0) jr.first_start_us = a.start_us;
  jr.progress->state(a.task) = TaskState::kRunning;
  cluster_.AddUsed(a.machine, a.usage);
  if (opt_.task_failure_prob > 0 && failure_rng_.Bernoulli(opt_.task_failure_prob)) {
    a.doomed = true;
    a.fail_phase = st.phases.empty() ? 0 : static_cast<uint16_t>(failure_rng_.UniformInt(st.phases.size()));
  }
  const AttemptStart start{a.task, a.attempt_no, a.machine, a.start_us, a.demand};
  for (RunObserver* o : observers_) o->OnAttemptStart(start);
  if (executor_ != nullptr) {  // live: the attempt runs on a real machine
    return executor_->StartAttempt(AttemptLaunch{AttemptId(slot, a.generation), a.task, a.attempt_no, a.machine});
  }
  const bool agent_controls = !st.phases.empty() && !nodes_.empty() && nodes_[a.machine.value()] &&
                              nodes_[a.machine.value()]->ControlsPhases();
  if (agent_controls) {
    Mail mail{.kind = MailKind::kPhaseReady, .to = Address::Node(a.machine), .phase = 0};
    mail.end.task = a.task;
    mailbox_.Post(std::move(mail), 0);
  } else {
    StartSegment(slot);
  }
  if (opt_.model == ExecutionModel::kContention) EnforceMemory(a.machine);
}

void EngineCore::StartSegment(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  a.running_segment = true;
  a.remaining_us = NominalSegmentUs(a);
  if (a.doomed && st.phases.empty()) {
    a.remaining_us = std::max(1.0, std::floor(a.remaining_us * failure_rng_.Uniform()));
  }
  a.want = Resources();
  if (st.phases.empty()) {
    for (Resource r : kSharedResources) a.want.set_micro(r, a.usage.micro(r));
  } else {
    const Resource r = st.phases[a.phase].resource;
    a.want.set_micro(r, r == kCpu ? kMicroUnits : cluster_.capacity(a.machine).micro(r));
  }
  a.last_update_us = queue_.now();
  a.rate = 1;
  if (opt_.model == ExecutionModel::kFixed) {
    a.planned_end_us = queue_.now() + static_cast<TimeUs>(std::ceil(a.remaining_us));
    queue_.Push(Event{.time = a.planned_end_us, .type = EventType::kSegmentEnd, .a = slot, .b = a.generation,
                      .c = ++a.version});
  } else {
    a.planned_end_us = -1;  // Reschedule computes it
    Reschedule(a.machine);
  }
}

void EngineCore::Reschedule(MachineId m) {
  const TimeUs now = queue_.now();
  std::array<int64_t, kNumResources> wanted{};
  for (uint32_t slot : machine_attempts_[m.value()]) {
    Attempt& a = attempts_[slot];
    if (!a.running_segment) continue;
    a.remaining_us = std::max(0.0, a.remaining_us - static_cast<double>(now - a.last_update_us) * a.rate);
    a.last_update_us = now;
    for (Resource r : kSharedResources) wanted[r] += a.want.micro(r);
  }
  const Resources& cap = cluster_.capacity(m);
  std::array<double, kNumResources> share{};
  for (Resource r : kSharedResources) {
    share[r] = wanted[r] > cap.micro(r) ? static_cast<double>(cap.micro(r)) / static_cast<double>(wanted[r]) : 1.0;
  }
  for (uint32_t slot : machine_attempts_[m.value()]) {
    Attempt& a = attempts_[slot];
    if (!a.running_segment) continue;
    double rate = 1.0;
    for (Resource r : kSharedResources) {
      if (a.want.micro(r) > 0) rate = std::min(rate, share[r]);
    }
    a.rate = std::max(rate, 1e-9);
    const TimeUs end = now + static_cast<TimeUs>(std::ceil(a.remaining_us / a.rate - 1e-9));
    if (end != a.planned_end_us) {
      a.planned_end_us = end;
      queue_.Push(Event{.time = end, .type = EventType::kSegmentEnd, .a = slot, .b = a.generation, .c = ++a.version});
    }
  }
}

void EngineCore::EnforceMemory(MachineId m) {
  // Out-of-memory: kill the newest started attempts until the rest fit, as
  // an OOM killer would. The kills count as failures of those tasks.
  while (cluster_.used(m).micro(kMem) > cluster_.capacity(m).micro(kMem)) {
    uint32_t newest = UINT32_MAX;
    for (uint32_t slot : machine_attempts_[m.value()]) {
      const Attempt& a = attempts_[slot];
      if (a.started && (newest == UINT32_MAX || a.start_order > attempts_[newest].start_order)) newest = slot;
    }
    if (newest == UINT32_MAX) return;
    EndAttempt(newest, Outcome::kFailed);
  }
}

void EngineCore::SegmentEnded(uint32_t slot) {
  Attempt& a = attempts_[slot];
  const Stage& st = w_.jobs[a.task.job.value()].stages[a.task.stage];
  a.running_segment = false;
  a.remaining_us = 0;
  if (opt_.model == ExecutionModel::kContention) Reschedule(a.machine);
  if (!st.phases.empty()) {
    if (a.doomed && a.phase == a.fail_phase) return EndAttempt(slot, Outcome::kFailed);
    if (a.phase + 1u < st.phases.size()) {
      ++a.phase;
      if (!nodes_.empty() && nodes_[a.machine.value()] && nodes_[a.machine.value()]->ControlsPhases()) {
        Mail mail{.kind = MailKind::kPhaseReady, .to = Address::Node(a.machine), .phase = a.phase};
        mail.end.task = a.task;
        mailbox_.Post(std::move(mail), 0);
      } else {
        StartSegment(slot);
      }
      return;
    }
  }
  EndAttempt(slot, a.doomed ? Outcome::kFailed : Outcome::kOk);
}

void EngineCore::EndAttempt(uint32_t slot, Outcome outcome) {
  events_since_progress_ = 0;
  Attempt a = attempts_[slot];
  if (executor_ != nullptr && !ending_by_executor_) executor_->KillAttempt(AttemptId(slot, a.generation), a.machine);
  const TaskRef t = a.task;
  JobRun& jr = jobs_[t.job.value()];
  const uint64_t k = jr.progress->stage_offset[t.stage] + t.index;
  const MachineId m = a.machine;
  const TimeUs now = queue_.now();
  // Release what the attempt held.
  auto& on_machine = machine_attempts_[m.value()];
  on_machine.erase(std::find(on_machine.begin(), on_machine.end(), slot));
  cluster_.AddRunning(m, -1);
  if (a.started) cluster_.RemoveUsed(m, a.usage);
  if (a.container.valid()) {
    auto it = containers_.find(a.container.value());
    if (it != containers_.end()) {
      it->second.in_use -= a.demand;
      --it->second.tasks;
    }
  } else {
    cluster_.Deallocate(m, a.demand);
  }
  Attempt& freed = attempts_[slot];
  freed.free = true;
  freed.running_segment = false;
  ++freed.generation;
  free_attempts_.push_back(slot);
  jr.slot[k] = UINT32_MAX;
  if (a.running_segment && opt_.model == ExecutionModel::kContention) Reschedule(m);

  policy::StageProgress& sp = jr.progress->stages[t.stage];
  --sp.running;
  ++stats_.attempts;
  const TimeUs start = a.started ? a.start_us : now;
  if (outcome == Outcome::kOk) {
    ++sp.learned_count;
    sp.learned_total_us += now - start;
  }
  const AttemptRecord record{t,     a.attempt_no, m,       a.ready_us,     start,         now,
                             outcome, a.demand,   a.usage, LocalityOf(a), a.container.valid()};
  for (RunObserver* o : observers_) o->OnAttemptEnd(record);

  bool job_fails = false;
  bool retry = false;
  if (outcome == Outcome::kFailed) {
    ++jr.failures[k];
    job_fails = jr.failures[k] >= opt_.max_attempts;
    retry = !job_fails && !jr.progress->failed;
  } else if (outcome == Outcome::kKilled) {
    retry = !jr.progress->failed;
  }
  jr.progress->state(t) = TaskState::kBlocked;  // until one of the branches below
  policy::TaskEnd end{t, m, outcome, a.attempt_no, start, now, a.container, retry};
  mailbox_.Post(Mail{.kind = MailKind::kTaskEnded, .to = HomeOf(t.job), .end = end}, opt_.latency_us);
  if (HasAgent(m.value())) mailbox_.Post(Mail{.kind = MailKind::kTaskEnded, .to = Address::Node(m), .end = end}, 0);

  if (outcome == Outcome::kOk) {
    TaskDone(t);
  } else if (retry) {
    MakeReady(t, true);
  } else if (job_fails) {
    FinishJob(t.job, false);
  } else {
    jr.progress->state(t) = TaskState::kAbandoned;
  }
}

}  // namespace weft::sim
