// File: metrics/schedule_checker.cc
//
// ScheduleChecker: re-derives task, job and machine state from the stream of
// run records and reports every rule the schedule breaks, inline or on a
// checking thread of its own fed in batches; see the header.
#include "metrics/schedule_checker.h"

#include <tuple>

#include "fmt/format.h"
#include "model/locality.h"
#include "model/shuffle.h"

namespace weft {
namespace {

void SaturatingIncrement(uint8_t& x) {
  if (x < UINT8_MAX) ++x;
}

}  // namespace

ScheduleChecker::ScheduleChecker(const Workload& workload, ResourceMask overbooked, bool concurrent)
    : workload_(workload),
      overbooked_(overbooked),
      machine_held_(workload.cluster.size()),
      busy_periods_(workload.cluster.size()),
      job_phase_(workload.jobs.size(), JobPhase::kNotSeen),
      jobs_known_(workload.jobs.size()),
      concurrent_(concurrent && std::thread::hardware_concurrency() > 1) {
  const Cluster& c = workload.cluster;
  links_.resize(2 * c.size() + 2 * c.num_racks());
  for (size_t i = 0; i < c.size(); ++i) {
    links_[2 * i].mbps = links_[2 * i + 1].mbps = c.machines()[i].capacity.units(kNet);
  }
  for (uint32_t r = 0; r < c.num_racks(); ++r) {
    links_[2 * c.size() + 2 * r].mbps = links_[2 * c.size() + 2 * r + 1].mbps = c.RackUplinkMbps(RackId(r));
  }
}

ScheduleChecker::~ScheduleChecker() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void ScheduleChecker::Push(Record record) {
  pending_.push_back(std::move(record));
  if (concurrent_ && pending_.size() >= kBatchRecords) HandOver();
}

void ScheduleChecker::HandOver() {
  std::unique_lock lock(mu_);
  // Two batches at most: the one being checked and this one. Waiting here
  // keeps memory bounded when the simulation outruns the checker.
  cv_.wait(lock, [this] { return !batch_ready_; });
  std::swap(pending_, handed_);  // pending_ gets back a checked batch's buffer
  pending_.clear();
  handed_jobs_ = workload_.jobs.size();
  batch_ready_ = true;
  if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  cv_.notify_all();
}

void ScheduleChecker::Work() {
  std::vector<Record> batch;
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return batch_ready_ || stop_; });
      if (!batch_ready_) return;  // stopped, nothing left
      std::swap(batch, handed_);
      jobs_known_ = handed_jobs_;
      batch_ready_ = false;
      busy_ = true;
    }
    cv_.notify_all();
    for (const Record& r : batch) Apply(r);
    batch.clear();
    {
      std::lock_guard lock(mu_);
      busy_ = false;
    }
    cv_.notify_all();
  }
}

void ScheduleChecker::Drain() {
  if (!worker_.joinable()) {
    // No thread (inline, or not one batch yet): check here.
    jobs_known_ = workload_.jobs.size();
    for (const Record& r : pending_) Apply(r);
    pending_.clear();
    return;
  }
  if (!pending_.empty()) HandOver();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !batch_ready_ && !busy_; });
}

void ScheduleChecker::Apply(const Record& record) {
  switch (record.index()) {
    case 0: CheckStart(std::get<0>(record)); break;
    case 1: CheckEnd(std::get<1>(record)); break;
    case 2: CheckJobEnd(std::get<2>(record)); break;
    case 3: CheckReservation(std::get<3>(record)); break;
    case 4: CheckFlow(std::get<4>(record)); break;
    default: CheckRunEnd(std::get<5>(record)); break;
  }
}

void ScheduleChecker::OnRunEnd(TimeUs end_us) {
  Push(end_us);
  Drain();
}

void ScheduleChecker::Report(std::string message) {
  ++violation_count_;
  if (messages_.size() < kMaxMessages) messages_.push_back(std::move(message));
}

void ScheduleChecker::CheckOrder(TimeUs time_us, const char* what) {
  if (run_ended_) {
    Report(fmt::format("{} at {} s arrived after the run ended", what, FormatSeconds(time_us)));
  }
  if (time_us < last_time_us_) {
    Report(fmt::format("{} at {} s arrived after a record at {} s (records out of time order)",
                       what, FormatSeconds(time_us), FormatSeconds(last_time_us_)));
  } else {
    last_time_us_ = time_us;
  }
}

bool ScheduleChecker::ValidTask(const TaskRef& task, TimeUs time_us, const char* what) {
  const uint32_t j = task.job.value();
  const bool valid = task.job.valid() && j < jobs_known_ &&
                     task.stage < workload_.jobs[j].stages.size() &&
                     task.index < workload_.jobs[j].stages[task.stage].num_tasks;
  if (!valid) {
    Report(fmt::format("attempt of unknown task (job {} stage {} task {}) {} at {} s",
                       task.job.valid() ? fmt::format("{}", j) : std::string("none"), task.stage,
                       task.index, what, FormatSeconds(time_us)));
  }
  return valid;
}

ScheduleChecker::JobState* ScheduleChecker::ActiveJob(JobId job) {
  const uint32_t j = job.value();
  if (job_phase_.size() <= j) job_phase_.resize(jobs_known_, JobPhase::kNotSeen);
  if (job_phase_[j] == JobPhase::kEnded) return nullptr;
  if (job_phase_[j] == JobPhase::kActive) return &active_.at(j);
  job_phase_[j] = JobPhase::kActive;
  const std::vector<Stage>& stages = workload_.jobs[j].stages;
  JobState& state = active_[j];
  state.stage_offset.resize(stages.size());
  state.stage_done.assign(stages.size(), 0);
  size_t total = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    state.stage_offset[s] = total;
    total += stages[s].num_tasks;
  }
  state.tasks.assign(total, TaskState{});
  return &state;
}

std::string ScheduleChecker::Describe(const TaskRef& task) const {
  const Job& job = workload_.jobs[task.job.value()];
  if (task.stage >= job.stages.size()) {  // a released job (model/job_source.h)
    return fmt::format("job \"{}\" stage #{} task {}", job.name, task.stage, task.index);
  }
  return fmt::format("job \"{}\" stage \"{}\" task {}", job.name, job.stages[task.stage].name,
                     task.index);
}

std::string ScheduleChecker::MachineName(MachineId machine) const {
  if (!machine.valid()) return "no machine";
  if (!ValidMachine(machine)) return fmt::format("unknown machine {}", machine.value());
  return workload_.cluster.machine(machine).name;
}

void ScheduleChecker::CheckParents(JobState& state, const TaskRef& task, MachineId machine,
                                   TimeUs time_us) {
  const Job& job = workload_.jobs[task.job.value()];
  for (const Edge& edge : job.stages[task.stage].parents) {
    if (edge.stage >= job.stages.size()) continue;  // the workload reader rejects these
    const Stage& parent = job.stages[edge.stage];
    if (edge.kind == EdgeKind::kShuffle) {
      // It may start (and shuffle) once the slow-start threshold is done;
      // CheckShuffleEnd checks that its work ended after the last parent.
      const uint32_t threshold = LaunchThreshold(edge, parent.num_tasks);
      if (state.stage_done[edge.stage] < threshold) {
        Report(fmt::format("{} started at {} s on {} with {} of {} tasks of shuffle parent stage \"{}\" done, "
                           "before its slow-start threshold {}",
                           Describe(task), FormatSeconds(time_us), MachineName(machine),
                           state.stage_done[edge.stage], parent.num_tasks, parent.name, threshold));
      }
    } else if (edge.WaitsForWholeParent()) {
      if (state.stage_done[edge.stage] < parent.num_tasks) {
        Report(fmt::format("{} started at {} s on {} before parent stage \"{}\" finished",
                           Describe(task), FormatSeconds(time_us), MachineName(machine),
                           parent.name));
      }
    } else if (task.index >= parent.num_tasks) {
      Report(fmt::format(
          "{} started at {} s on {} but pipelined parent stage \"{}\" has no task {}",
          Describe(task), FormatSeconds(time_us), MachineName(machine), parent.name, task.index));
    } else if (Task(state, TaskRef{task.job, edge.stage, task.index}).ok_ends == 0) {
      Report(fmt::format(
          "{} started at {} s on {} before task {} of pipelined parent stage \"{}\" "
          "finished",
          Describe(task), FormatSeconds(time_us), MachineName(machine), task.index, parent.name));
    }
  }
}

void ScheduleChecker::CheckShuffleEnd(const JobState& state, const AttemptRecord& record) {
  const Job& job = workload_.jobs[record.task.job.value()];
  for (const Edge& edge : job.stages[record.task.stage].parents) {
    if (edge.kind != EdgeKind::kShuffle || edge.stage >= job.stages.size()) continue;
    const Stage& parent = job.stages[edge.stage];
    // Its work begins after the last parent task ends and takes some time,
    // so an ok end at or before that instant (records are in time order: the
    // parent's end would be seen first) is a violation.
    if (state.stage_done[edge.stage] < parent.num_tasks) {
      Report(fmt::format("{} ended ok at {} s on {} before shuffle parent stage \"{}\" finished",
                         Describe(record.task), FormatSeconds(record.end_us), MachineName(record.machine),
                         parent.name));
    }
  }
}

void ScheduleChecker::CheckRemoteRead(const AttemptRecord& record) {
  if (record.locality != Locality::kRack && record.locality != Locality::kRemote) return;
  const Stage& stage = workload_.jobs[record.task.job.value()].stages[record.task.stage];
  const TimeUs read_us =
      RemoteReadUs(workload_.cluster, stage, record.task.index, record.machine, record.locality == Locality::kRack);
  if (record.end_us - record.start_us < read_us) {
    Report(fmt::format("{} ended ok at {} s on {} ({}) {} s after its start, before its remote read of {} s was done",
                       Describe(record.task), FormatSeconds(record.end_us), MachineName(record.machine),
                       LocalityName(record.locality), FormatSeconds(record.end_us - record.start_us),
                       FormatSeconds(read_us)));
  }
}

void ScheduleChecker::CheckStart(const AttemptStart& start) {
  const TimeUs t = start.time_us;
  CheckOrder(t, "attempt start");
  if (!ValidTask(start.task, t, "started")) return;
  // Messages name tasks and machines; they are built only for a violation,
  // as a valid run (the usual case) has millions of records and none.
  const auto task = [&] { return Describe(start.task); };
  const auto at = [&] { return fmt::format("at {} s on {}", FormatSeconds(t), MachineName(start.machine)); };

  const RunningKey key{start.task, start.attempt};
  const auto [slot, inserted] = running_.try_emplace(key);
  if (!inserted) {
    Report(fmt::format("{} attempt {} started {} while that same attempt is already running", task(),
                       start.attempt, at()));
    return;  // not tracked: its end matches the first start
  }

  const Job& job = workload_.jobs[start.task.job.value()];
  if (t < job.arrival_us) {
    Report(fmt::format("{} started {} before its job arrived at {} s", task(), at(),
                       FormatSeconds(job.arrival_us)));
  }

  if (!ValidMachine(start.machine)) {
    Report(fmt::format("{} started at {} s on {}", task(), FormatSeconds(t), MachineName(start.machine)));
  } else {
    const Resources& capacity = workload_.cluster.machine(start.machine).capacity;
    Resources& held = machine_held_[start.machine.value()];
    held += start.demand;
    BusyPeriod& busy = busy_periods_[start.machine.value()];
    if (busy.running++ == 0) busy = BusyPeriod{.running = 1, .from_us = t};
    const Stage& st = workload_.jobs[start.task.job.value()].stages[start.task.stage];
    if (st.HasProfiledPhases() && start.demand != PhaseReservation(st, 0)) {
      Report(fmt::format("{} started {} reserving {} but its first profiled phase reserves {}", task(), at(),
                         start.demand.ToString(), PhaseReservation(st, 0).ToString()));
    }
    if (!start.demand.FitsIn(capacity)) {
      Report(fmt::format("{} started {} with demand {} that exceeds the machine's capacity {}",
                         task(), at(), start.demand.ToString(), capacity.ToString()));
    } else if (!held.FitsInExcept(capacity, overbooked_)) {
      Report(fmt::format("{} started {} over the machine's capacity: {} held, capacity {}", task(),
                         at(), held.ToString(), capacity.ToString()));
    }
  }

  JobState* state = ActiveJob(start.task.job);
  if (state == nullptr) {
    Report(fmt::format("{} started {} after its job ended", task(), at()));
  } else {
    TaskState& ts = Task(*state, start.task);
    if (ts.ok_ends > 0) {
      Report(fmt::format("{} started {} after it had already ended ok", task(), at()));
    }
    if (ts.running > 0) {
      Report(fmt::format("{} started {} while another attempt of it is still running", task(), at()));
    }
    CheckParents(*state, start.task, start.machine, t);
    SaturatingIncrement(ts.running);
  }
  slot->second = Running{.machine = start.machine,
                         .start_us = t,
                         .demand = start.demand,
                         .start_demand = start.demand,
                         .after_job_end = state == nullptr};
}

void ScheduleChecker::CheckReservation(const ReservationChange& change) {
  const TimeUs t = change.time_us;
  CheckOrder(t, "reservation change");
  if (!ValidTask(change.task, t, "changed its reservation")) return;
  const auto task = [&] { return fmt::format("{} attempt {}", Describe(change.task), change.attempt); };
  const auto at = [&] { return fmt::format("at {} s on {}", FormatSeconds(t), MachineName(change.machine)); };
  const auto it = running_.find(RunningKey{change.task, change.attempt});
  if (it == running_.end() || it->second.machine != change.machine || !ValidMachine(change.machine)) {
    Report(fmt::format("{} changed its reservation {} but is not running there", task(), at()));
    return;
  }
  const Stage& st = workload_.jobs[change.task.job.value()].stages[change.task.stage];
  if (!st.HasProfiledPhases() || change.phase >= st.phases.size() ||
      PhaseReservation(st, change.phase) != change.demand) {
    Report(fmt::format("{} reserved {} {} for phase {}, which is not a profiled phase with that demand", task(),
                       change.demand.ToString(), at(), change.phase));
  }
  Running& run = it->second;
  const bool grew = !change.demand.FitsIn(run.demand);
  Resources& held = machine_held_[change.machine.value()];
  held -= run.demand;
  held += change.demand;
  run.demand = change.demand;
  const Resources& capacity = workload_.cluster.machine(change.machine).capacity;
  if (grew && !held.FitsInExcept(capacity, overbooked_)) {
    Report(fmt::format("{} grew its reservation to {} {}: {} held, over the machine's capacity {}", task(),
                       change.demand.ToString(), at(), held.ToString(), capacity.ToString()));
  }
}

void ScheduleChecker::CheckEnd(const AttemptRecord& record) {
  const TimeUs t = record.end_us;
  CheckOrder(t, "attempt end");
  if (!ValidTask(record.task, t, "ended")) return;
  // Built only for a violation, as in OnAttemptStart.
  const auto task = [&] { return fmt::format("{} attempt {}", Describe(record.task), record.attempt); };
  const auto at = [&] { return fmt::format("at {} s on {}", FormatSeconds(t), MachineName(record.machine)); };

  if (record.end_us < record.start_us) {
    Report(fmt::format("{} ended {} before it started at {} s", task(), at(),
                       FormatSeconds(record.start_us)));
  }

  const auto it = running_.find(RunningKey{record.task, record.attempt});
  const bool started = it != running_.end();
  bool after_job_end = false;
  if (started) {
    const Running run = it->second;
    running_.erase(it);
    after_job_end = run.after_job_end;
    if (ValidMachine(run.machine)) {
      machine_held_[run.machine.value()] -= run.demand;
      CheckDelivered(run.machine, record);  // where it ran, even if the record names another machine
    }
    if (record.machine != run.machine) {
      Report(fmt::format("{} ended {} but started on {}", task(), at(), MachineName(run.machine)));
    }
    if (record.start_us != run.start_us) {
      Report(fmt::format("{} ended {} reporting start {} s but started at {} s", task(), at(),
                         FormatSeconds(record.start_us), FormatSeconds(run.start_us)));
    }
    if (record.demand != run.start_demand) {
      Report(fmt::format("{} ended {} reporting demand {} but held {}", task(), at(),
                         record.demand.ToString(), run.start_demand.ToString()));
    }
  } else if (record.outcome == Outcome::kKilled && record.start_us == record.end_us) {
    return;  // killed before it started: nothing ran
  } else {
    Report(fmt::format("{} ended {} ({}) but was not running", task(), at(), OutcomeName(record.outcome)));
  }
  if (record.start_us < record.ready_us) {
    Report(fmt::format("{} started at {} s on {} before it was ready at {} s", task(),
                       FormatSeconds(record.start_us), MachineName(record.machine),
                       FormatSeconds(record.ready_us)));
  }

  JobState* state = ActiveJob(record.task.job);
  if (state == nullptr) {
    if (started && !after_job_end) Report(fmt::format("{} ended {} after its job ended", task(), at()));
    return;
  }
  TaskState& ts = Task(*state, record.task);
  if (started && ts.running > 0) --ts.running;
  if (record.outcome == Outcome::kOk) {
    CheckShuffleEnd(*state, record);
    CheckRemoteRead(record);
    if (ts.ok_ends > 0) {
      Report(fmt::format("{} ended ok {} but the task had already ended ok", task(), at()));
    } else {
      ++state->stage_done[record.task.stage];
    }
    SaturatingIncrement(ts.ok_ends);
  }
}

void ScheduleChecker::CheckDelivered(MachineId machine, const AttemptRecord& record) {
  BusyPeriod& busy = busy_periods_[machine.value()];
  const auto duration = static_cast<double>(record.end_us - record.start_us);
  for (Resource r : {kCpu, kDisk, kNet}) busy.used[r] += static_cast<double>(record.usage.micro(r)) * duration;
  busy.rounding += duration;
  if (busy.running == 0 || --busy.running > 0) return;
  // The period ends: a necessary condition of conservation at every instant,
  // and exact for work that a model makes from nothing (two 10 s tasks of a
  // whole core each, both done in 10 s on one core).
  const Resources& capacity = workload_.cluster.machine(machine).capacity;
  const auto span = static_cast<double>(record.end_us - busy.from_us);
  for (Resource r : {kCpu, kDisk, kNet}) {
    const double limit = static_cast<double>(capacity.micro(r)) * span;
    if (busy.used[r] <= limit * (1 + 1e-9) + busy.rounding) continue;
    Report(fmt::format("{} delivered {:.3f} {} of {} from {} to {} s, more than its capacity allows ({:.3f})",
                       MachineName(machine), busy.used[r] / kMicroUnits / 1e6,
                       r == kCpu ? "core-seconds" : "MB", kResourceNames[r], FormatSeconds(busy.from_us),
                       FormatSeconds(record.end_us), limit / kMicroUnits / 1e6));
  }
}

void ScheduleChecker::CheckFlow(const FlowRecord& record) {
  CheckOrder(record.end_us, "flow end");
  if (!ValidTask(record.task, record.end_us, "ended a flow")) return;
  if (!ValidMachine(record.from) || !ValidMachine(record.to) || record.from == record.to) {
    Report(fmt::format("a flow of {} at {} s names machines {} and {}", Describe(record.task),
                       FormatSeconds(record.end_us), MachineName(record.from), MachineName(record.to)));
    return;
  }
  if (record.end_us < record.start_us || record.mb < 0) {
    Report(fmt::format("a flow of {} from {} to {} ends at {} s before its start at {} s or carries {} MB",
                       Describe(record.task), MachineName(record.from), MachineName(record.to),
                       FormatSeconds(record.end_us), FormatSeconds(record.start_us), record.mb));
    return;
  }
  const Cluster& c = workload_.cluster;
  const size_t machines = c.size();
  CheckLink(2 * record.from.value(), record, MachineName(record.from) + "'s interface out");
  CheckLink(2 * record.to.value() + 1, record, MachineName(record.to) + "'s interface in");
  const RackId from_rack = c.machine(record.from).rack;
  const RackId to_rack = c.machine(record.to).rack;
  if (from_rack != to_rack) {
    CheckLink(2 * machines + 2 * from_rack.value(), record, fmt::format("rack {}'s uplink out", from_rack.value()));
    CheckLink(2 * machines + 2 * to_rack.value() + 1, record, fmt::format("rack {}'s uplink in", to_rack.value()));
  }
}

void ScheduleChecker::CheckLink(size_t link, const FlowRecord& record, const std::string& name) {
  Link& l = links_[link];
  if (l.mbps <= 0) return;
  // Records come in end order, so every period ends no later than this flow:
  // those that reach past its start merge with it.
  LinkPeriod merged{.from_us = record.start_us, .to_us = record.end_us, .mb = record.mb};
  while (!l.periods.empty() && l.periods.back().to_us > record.start_us) {
    merged.from_us = std::min(merged.from_us, l.periods.back().from_us);
    merged.mb += l.periods.back().mb;
    l.periods.pop_back();
  }
  if (l.periods.size() == kLinkPeriods) l.periods.erase(l.periods.begin());
  l.periods.push_back(merged);
  const double seconds = static_cast<double>(merged.to_us - merged.from_us) / 1e6;
  // One microsecond of rounding per end.
  if (merged.mb <= l.mbps * (seconds + 2e-6) * (1 + 1e-9)) return;
  Report(fmt::format("{} carried {:.3f} MB from {} to {} s, more than its {} MB/s allow ({:.3f})", name, merged.mb,
                     FormatSeconds(merged.from_us), FormatSeconds(merged.to_us), l.mbps, l.mbps * seconds));
}

void ScheduleChecker::CheckJobEnd(const JobRecord& record) {
  const TimeUs t = record.end_us;
  CheckOrder(t, "job end");
  const uint32_t j = record.job.value();
  if (!record.job.valid() || j >= jobs_known_) {
    Report(fmt::format("unknown job {} ended at {} s",
                       record.job.valid() ? fmt::format("{}", j) : std::string("none"),
                       FormatSeconds(t)));
    return;
  }
  const Job& job = workload_.jobs[j];
  if (job_phase_.size() <= j) job_phase_.resize(jobs_known_, JobPhase::kNotSeen);
  if (job_phase_[j] == JobPhase::kEnded) {
    Report(fmt::format("job \"{}\" ended again at {} s", job.name, FormatSeconds(t)));
    return;
  }
  if (t < job.arrival_us) {
    Report(fmt::format("job \"{}\" ended at {} s before it arrived at {} s", job.name,
                       FormatSeconds(t), FormatSeconds(job.arrival_us)));
  }
  JobState* state = ActiveJob(record.job);
  if (record.succeeded) {
    for (uint32_t s = 0; s < job.stages.size(); ++s) {
      if (state->stage_done[s] == job.stages[s].num_tasks) continue;
      for (uint32_t i = 0; i < job.stages[s].num_tasks; ++i) {
        const TaskRef ref{record.job, s, i};
        if (Task(*state, ref).ok_ends == 0) {
          Report(fmt::format("{} never ended ok, yet its job succeeded at {} s", Describe(ref),
                             FormatSeconds(t)));
        }
      }
    }
  }
  active_.erase(j);
  job_phase_[j] = JobPhase::kEnded;
}

void ScheduleChecker::CheckRunEnd(TimeUs end_us) {
  CheckOrder(end_us, "run end");
  run_ended_ = true;
  job_phase_.resize(std::max(job_phase_.size(), jobs_known_), JobPhase::kNotSeen);
  size_t not_ended = 0;
  const Job* first = nullptr;
  for (size_t j = 0; j < job_phase_.size(); ++j) {
    if (job_phase_[j] == JobPhase::kEnded) continue;
    if (first == nullptr) first = &workload_.jobs[j];
    ++not_ended;
  }
  if (not_ended > 0) {
    Report(fmt::format("run ended at {} s with {} of {} jobs not ended, the first job \"{}\"",
                       FormatSeconds(end_us), not_ended, job_phase_.size(), first->name));
  }
  if (!running_.empty()) {
    // The earliest start (ties by task) names one of them, deterministically.
    auto earliest = running_.begin();
    auto rank = [](const auto& e) {
      const TaskRef& t = e.first.task;
      return std::make_tuple(e.second.start_us, t.job, t.stage, t.index, e.first.attempt);
    };
    for (auto it = running_.begin(); it != running_.end(); ++it) {
      if (rank(*it) < rank(*earliest)) earliest = it;
    }
    Report(
        fmt::format("run ended at {} s with {} attempts still running, among them {} attempt {} "
                    "on {} since {} s",
                    FormatSeconds(end_us), running_.size(), Describe(earliest->first.task),
                    earliest->first.attempt, MachineName(earliest->second.machine),
                    FormatSeconds(earliest->second.start_us)));
  }
}

}  // namespace weft
