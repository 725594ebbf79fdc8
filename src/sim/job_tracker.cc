#include "sim/job_tracker.h"

#include <algorithm>
#include <utility>

#include "model/shuffle.h"

namespace weft::sim {

using policy::TaskState;

namespace {
// A released job's view: finished, with neither stages nor tasks.
JobRun ReleasedRun(bool failed) {
  static const Job kNoJob;
  JobRun run;
  run.progress = std::make_unique<policy::JobProgress>(kNoJob);
  run.progress->arrived = true;
  run.progress->finished = true;
  run.progress->failed = failed;
  return run;
}
}  // namespace

JobTracker::JobTracker(const Workload& workload, JobEvents& events)
    : w_(workload), events_(events), released_ok_(ReleasedRun(false)), released_failed_(ReleasedRun(true)) {}

void JobTracker::ExpectJobsAdded() {
  live_ = true;
  unfinished_ = 0;
  jobs_.clear();
}

void JobTracker::AddJob() {
  jobs_.resize(w_.jobs.size());
  ++unfinished_;
}

std::optional<JobId> JobTracker::Pull() {
  if (live_) return std::nullopt;
  if (source_ == nullptr) {
    own_source_ = std::make_unique<WorkloadSource>(w_);
    source_ = own_source_.get();
  }
  const std::optional<JobId> id = source_->Next();
  if (id) {
    ++unfinished_;
    pulled_.push_back(*id);
  }
  return id;
}

std::optional<JobId> JobTracker::FirstArrival() {
  if (!first_pulled_) {
    first_pulled_ = true;
    first_ = Pull();
  }
  return first_;
}

std::optional<JobId> JobTracker::NextArrival() { return Pull(); }

const JobRun* JobTracker::ReleasedOrNone(JobId id) const {
  if (!id.valid() || id.value() >= released_.size() || released_[id.value()] == 0) return nullptr;
  return released_[id.value()] == 1 ? &released_ok_ : &released_failed_;
}

void JobTracker::Arrive(JobId id) {
  // A job arrives once; it was counted when taken from the source (or
  // added: the runtime), else now (a caller that skips the source: tests).
  if (const auto it = std::find(pulled_.begin(), pulled_.end(), id); it != pulled_.end()) {
    pulled_.erase(it);
  } else if (!live_) {
    ++unfinished_;
  }
  const Job& job = w_.jobs[id.value()];
  if (jobs_.size() <= id.value()) jobs_.resize(id.value() + 1);
  jobs_[id.value()] = std::make_unique<JobRun>();
  ++live_runs_;
  JobRun& jr = *jobs_[id.value()];
  jr.progress = std::make_unique<policy::JobProgress>(job);
  jr.progress->arrived = true;
  jr.failures.assign(job.num_tasks, 0);
  jr.attempts.assign(job.num_tasks, 0);
  jr.slot.assign(job.num_tasks, kNoAttempt);
  jr.stage_ready_us.assign(job.stages.size(), 0);
  jr.launch_left.resize(job.stages.size());
  for (uint32_t s = 0; s < job.stages.size(); ++s) jr.launch_left[s] = jr.progress->stages[s].barrier_parents_left;
  if (!jr.progress->pipelined_left.empty()) jr.task_ready_us.assign(job.num_tasks, 0);
  jr.active = true;
  active_jobs_.push_back(id);
}

void JobTracker::ReleaseEnded(TimeUs now) {
  if (live_ || source_ == nullptr) return;
  // Jobs ended since the last call are stamped now: at or after their end.
  for (auto it = ended_.rbegin(); it != ended_.rend() && it->second == kUnstamped; ++it) it->second = now;
  // Stamps and `now` only grow, so the due prefix only grows until released.
  while (due_ < ended_.size() && ended_[due_].second + release_grace_us_ <= now) ++due_;
  if (due_ == 0 || due_ < release_batch_) return;
  std::vector<JobId> ids;
  ids.reserve(due_);
  for (size_t i = 0; i < due_; ++i) ids.push_back(ended_[i].first);
  ended_.erase(ended_.begin(), ended_.begin() + static_cast<std::ptrdiff_t>(due_));
  due_ = 0;
  Forget(ids);
}

void JobTracker::Release(std::span<const JobId> ids) {
  if (!live_) return;  // a simulated run releases by its grace (its ended_ would still hold them)
  std::vector<JobId> ended;
  ended.reserve(ids.size());
  for (const JobId id : ids) {
    const auto& runs = std::as_const(jobs_);  // a released id reads, never writes (its page may be the stubs)
    if (id.valid() && id.value() < runs.size() && runs[id.value()] && !runs[id.value()]->active) {
      ended.push_back(id);
    }
  }
  if (!ended.empty()) Forget(ended);
}

void JobTracker::Forget(std::span<const JobId> ids) {
  // The source first: it waits for the observers' threads, which may still
  // read these jobs.
  if (source_ != nullptr) source_->Release(ids);
  while (released_.size() < jobs_.size()) released_.push_back(0);
  for (const JobId id : ids) {
    std::unique_ptr<JobRun>& jr = jobs_[id.value()];
    const bool failed = jr->progress->failed;
    jr.reset();
    jobs_.Free(id.value());
    if (failed) {
      released_[id.value()] = 2;
    } else {
      released_.Free(id.value());  // reads as 1: released ok
    }
    --live_runs_;
  }
}

void JobTracker::ReleaseRoots(JobId id, TimeUs now) {
  ReleaseEnded(now);
  const Job& job = w_.jobs[id.value()];
  for (uint32_t s = 0; s < job.stages.size(); ++s) {
    if (job.stages[s].parents.empty()) ReleaseStage(id, s, now);
  }
}

uint64_t JobTracker::Recover(JobId id, std::span<const AttemptRecord> history, TimeUs now) {
  const Job& job = w_.jobs[id.value()];
  JobRun& jr = *jobs_[id.value()];
  policy::JobProgress& p = *jr.progress;
  uint64_t recovered = 0;
  for (const AttemptRecord& a : history) {
    const TaskRef& t = a.task;
    if (t.job != id || t.stage >= job.stages.size() || t.index >= job.stages[t.stage].num_tasks) continue;
    const uint64_t k = p.stage_offset[t.stage] + t.index;
    jr.attempts[k] = static_cast<uint8_t>(std::clamp<uint32_t>(a.attempt + 1, jr.attempts[k], 255));
    if (a.outcome == Outcome::kFailed && jr.failures[k] < 255) ++jr.failures[k];
    if (a.outcome != Outcome::kOk || p.state(t) == TaskState::kDone) continue;
    p.state(t) = TaskState::kDone;
    ++p.tasks_done;
    ++p.stages[t.stage].done;
    AddOutput(jr, t, a.machine);
    ++recovered;
    for (const Edge& child : job.stages[t.stage].children) {
      if (child.kind == EdgeKind::kPipelined) --p.pipelined_left[p.stage_offset[child.stage] + t.index];
    }
  }
  for (uint32_t s = 0; s < job.stages.size(); ++s) {
    for (const Edge& child : job.stages[s].children) {
      if (!child.WaitsForWholeParent()) continue;
      if (p.stages[s].done >= LaunchThreshold(child, job.stages[s].num_tasks)) {
        --jr.launch_left[child.stage];
      }
      if (p.stages[s].done == job.stages[s].num_tasks) --p.stages[child.stage].barrier_parents_left;
    }
  }
  if (p.tasks_done == job.num_tasks) {
    events_.JobCompleted(id);
    return recovered;
  }
  for (uint32_t s = 0; s < job.stages.size(); ++s) {
    if (jr.launch_left[s] == 0) ReleaseStage(id, s, now);
  }
  return recovered;
}

// ReleaseStage: every barrier parent of `stage` is done and every shuffle
// parent has reached its slow-start threshold; its tasks whose pipelined
// parents are done too become ready (but for tasks recovered as done by
// Recover).
void JobTracker::ReleaseStage(JobId id, uint32_t stage, TimeUs now) {
  JobRun& jr = *jobs_[id.value()];
  const policy::JobProgress& p = *jr.progress;
  const Stage& st = w_.jobs[id.value()].stages[stage];
  jr.stage_ready_us[stage] = now;
  if (!st.HasPipelinedParent() && p.stages[stage].done == 0) {
    for (uint32_t i = 0; i < st.num_tasks; ++i) MakeReady(TaskRef{id, stage, i}, false, now);
    events_.TasksReady(id, stage, 0, st.num_tasks);
    return;
  }
  // Notify maximal runs of consecutive ready tasks.
  const uint64_t offset = p.stage_offset[stage];
  uint32_t run_begin = 0;
  bool in_run = false;
  for (uint32_t i = 0; i <= st.num_tasks; ++i) {
    const bool ready = i < st.num_tasks && p.tasks[offset + i] != TaskState::kDone &&
                       (p.pipelined_left.empty() || p.pipelined_left[offset + i] == 0);
    if (ready) {
      MakeReady(TaskRef{id, stage, i}, false, now);
      if (!in_run) run_begin = i;
      in_run = true;
    } else if (in_run) {
      events_.TasksReady(id, stage, run_begin, i);
      in_run = false;
    }
  }
}

void JobTracker::MakeReady(const TaskRef& t, bool notify, TimeUs now) {
  JobRun& jr = *jobs_[t.job.value()];
  policy::StageProgress& sp = jr.progress->stages[t.stage];
  jr.progress->state(t) = TaskState::kReady;
  ++sp.ready;
  sp.released = true;
  if (!jr.task_ready_us.empty() && jr.attempts[jr.progress->stage_offset[t.stage] + t.index] == 0) {
    jr.task_ready_us[jr.progress->stage_offset[t.stage] + t.index] = now;
  }
  if (notify) events_.TasksReady(t.job, t.stage, t.index, t.index + 1);
}

void JobTracker::AddOutput(JobRun& jr, const TaskRef& t, MachineId where) {
  const Job& job = w_.jobs[t.job.value()];
  const Stage& st = job.stages[t.stage];
  const bool copied = std::any_of(st.children.begin(), st.children.end(),
                                  [](const Edge& e) { return e.kind == EdgeKind::kShuffle && e.shuffle_mb > 0; });
  if (!copied) return;
  if (jr.outputs.empty()) jr.outputs.resize(job.stages.size());
  auto& here = jr.outputs[t.stage];
  const auto it = std::find_if(here.begin(), here.end(), [&](const auto& o) { return o.first == where; });
  if (it == here.end()) {
    here.emplace_back(where, 1);
  } else {
    ++it->second;
  }
}

std::span<const std::pair<MachineId, uint32_t>> JobTracker::Outputs(JobId id, uint32_t stage) const {
  const JobRun& jr = *jobs_[id.value()];
  if (jr.outputs.empty()) return {};
  return jr.outputs[stage];
}

void JobTracker::TaskDone(const TaskRef& t, TimeUs now, MachineId where) {
  JobRun& jr = *jobs_[t.job.value()];
  const Job& job = w_.jobs[t.job.value()];
  policy::JobProgress& p = *jr.progress;
  p.state(t) = TaskState::kDone;
  ++p.tasks_done;
  policy::StageProgress& sp = p.stages[t.stage];
  ++sp.done;
  AddOutput(jr, t, where);
  const Stage& st = job.stages[t.stage];
  for (const Edge& child : st.children) {
    if (child.kind != EdgeKind::kPipelined) continue;
    const uint64_t k = p.stage_offset[child.stage] + t.index;
    if (--p.pipelined_left[k] == 0 && jr.launch_left[child.stage] == 0) {
      MakeReady(TaskRef{t.job, child.stage, t.index}, true, now);
    }
  }
  for (const Edge& child : st.children) {
    if (!child.WaitsForWholeParent()) continue;
    if (child.kind == EdgeKind::kShuffle) events_.ShuffleOutputReady(t.job, child, where);
    // A barrier parent releases its child at its last task; a shuffle parent
    // at its slow-start threshold, and ends the child's shuffles at its last.
    const bool release = sp.done == LaunchThreshold(child, st.num_tasks) && --jr.launch_left[child.stage] == 0;
    const bool all_done = sp.done == st.num_tasks && --p.stages[child.stage].barrier_parents_left == 0;
    if (release) ReleaseStage(t.job, child.stage, now);
    if (all_done && child.kind == EdgeKind::kShuffle) events_.ShuffleParentsDone(t.job, child.stage);
  }
  if (p.tasks_done == job.num_tasks) events_.JobCompleted(t.job);
}

void JobTracker::AddShuffling(const TaskRef& t, uint32_t slot, uint32_t generation) {
  JobRun& jr = *jobs_[t.job.value()];
  if (jr.shuffling.empty()) jr.shuffling.resize(w_.jobs[t.job.value()].stages.size());
  jr.shuffling[t.stage].emplace_back(slot, generation);
}

std::span<const std::pair<uint32_t, uint32_t>> JobTracker::Shuffling(JobId id, uint32_t stage) const {
  const JobRun& jr = *jobs_[id.value()];
  if (jr.shuffling.empty()) return {};
  return jr.shuffling[stage];
}

std::vector<std::pair<uint32_t, uint32_t>> JobTracker::TakeShuffling(JobId id, uint32_t stage) {
  std::vector<std::pair<uint32_t, uint32_t>> waiting;
  JobRun& jr = *jobs_[id.value()];
  if (!jr.shuffling.empty()) waiting.swap(jr.shuffling[stage]);
  return waiting;
}

void JobTracker::AbandonUndone(JobId id) {
  for (auto& s : jobs_[id.value()]->progress->tasks) {
    if (s != TaskState::kDone) s = TaskState::kAbandoned;
  }
}

TimeUs JobTracker::Finish(JobId id) {
  JobRun& jr = *jobs_[id.value()];
  jr.progress->finished = true;
  jr.active = false;
  --unfinished_;
  active_jobs_.erase(std::find(active_jobs_.begin(), active_jobs_.end(), id));
  // Free per-task state. (`v = {}` would keep the capacity: swap with an
  // empty vector to really give the memory back.) The progress record and
  // its task states stay, one byte per task, because roles still hear of the
  // job after it ends (task ended, job finished) and may read its JobView.
  std::vector<uint8_t>().swap(jr.failures);
  std::vector<uint8_t>().swap(jr.attempts);
  std::vector<uint32_t>().swap(jr.slot);
  std::vector<TimeUs>().swap(jr.task_ready_us);
  std::vector<uint32_t>().swap(jr.launch_left);
  decltype(jr.shuffling)().swap(jr.shuffling);
  std::vector<uint8_t>().swap(jr.progress->pipelined_left);
  if (!live_) ended_.emplace_back(id, kUnstamped);
  return jr.first_start_us < 0 ? w_.jobs[id.value()].arrival_us : jr.first_start_us;
}

uint64_t JobTracker::UnfinishedTasks() {
  if (unfinished_ == 0) return 0;
  uint64_t n = 0;
  for (const JobId id : active_jobs_) {
    const policy::JobProgress& p = *jobs_[id.value()]->progress;
    n += p.tasks.size() - p.tasks_done;
  }
  if (live_) {
    for (size_t j = 0; j < jobs_.size(); ++j) {
      if (!std::as_const(jobs_)[j]) n += w_.jobs[j].num_tasks;  // never arrived (or released: 0 tasks left)
    }
    return n;
  }
  // The arrival that was due, and every job the source has left.
  while (Pull()) {
  }
  for (const JobId id : pulled_) n += w_.jobs[id.value()].num_tasks;
  return n;
}

}  // namespace weft::sim
