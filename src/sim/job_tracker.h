// File: sim/job_tracker.h (internal to sim/)
//
// JobTracker: the life of jobs and their tasks, apart from the attempts that
// run them: the order jobs arrive in, which are active, each active job's
// per-task run state (attempt and failure counts, the attempt slot of a
// launched task, readiness times), readiness along the edges (a barrier
// child is released when its parent's last task is done, a shuffle child at
// the parent's slow-start fraction, a pipelined child task when its parent
// task is), recovery of a job from its history (the runtime's journal), and
// the bookkeeping of a job's end.
//
// Jobs come from a JobSource (model/job_source.h), asked for the next one
// only when a job arrives, so a streamed trace is read as the run goes. An
// ended job's state is released a while after its end (ReleaseGrace), in
// batches, together with the source's copy of its stages: memory follows the
// active jobs. In a live run (the runtime) the owner releases ended jobs
// itself (Release), when its retention no longer keeps them. A released job's view says finished (and failed or not) and
// has no stages or tasks: roles must not ask a finished job about those.
//
// What follows from a change of state for the rest of the run (telling the
// job's home that tasks became ready, the shuffles waiting on a parent,
// finishing a job whose last task is done) the tracker hands to its JobEvents
// listener, the engine, at the moment it happens, so the order of effects is
// the order of the tracker's decisions.
// Not thread-safe; owned by one engine.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "core/paged_store.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/job_source.h"
#include "model/workload.h"
#include "policy/job_view.h"

namespace weft::sim {

inline constexpr uint32_t kNoAttempt = UINT32_MAX;

// Per-job run state; allocated when the job arrives, freed when it ends, so
// only active jobs hold per-task state.
struct JobRun {
  std::unique_ptr<policy::JobProgress> progress;
  std::vector<uint8_t> failures;      // failed attempts per task
  std::vector<uint8_t> attempts;      // attempts started per task (capped at 255)
  std::vector<uint32_t> slot;         // attempt slot of a launched/running task
  std::vector<TimeUs> stage_ready_us; // when each stage's barrier parents were done
  // Per stage, parent stages whose launch condition is not met yet (barrier:
  // not all done; shuffle: short of its slow-start threshold); the stage is
  // released at 0. Equals barrier_parents_left without shuffle edges.
  std::vector<uint32_t> launch_left;
  std::vector<TimeUs> task_ready_us;  // per task, only for jobs with pipelined edges
  // Per stage, the attempts (slot, generation) in their shuffle phase waiting
  // for the last parent task; sized only for jobs whose shuffles wait.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> shuffling;
  // Per stage, where its done tasks' outputs are: (machine, how many), for
  // the stages whose shuffle children copy bytes; sized only for such jobs.
  std::vector<std::vector<std::pair<MachineId, uint32_t>>> outputs;
  TimeUs first_start_us = -1;
  bool active = false;
};

// JobEvents: what the tracker's changes mean for the rest of the run.
class JobEvents {
 public:
  virtual ~JobEvents() = default;
  // TasksReady: tasks [begin, end) of the stage became ready.
  virtual void TasksReady(JobId job, uint32_t stage, uint32_t begin, uint32_t end) = 0;
  // ShuffleOutputReady: a task of the parent of shuffle edge `child` is done;
  // its output is on machine `where`.
  virtual void ShuffleOutputReady(JobId job, const Edge& child, MachineId where) = 0;
  // ShuffleParentsDone: every parent task of `stage` is done.
  virtual void ShuffleParentsDone(JobId job, uint32_t stage) = 0;
  // JobCompleted: the job's last task is done.
  virtual void JobCompleted(JobId job) = 0;
};

class JobTracker {
 public:
  // The workload outlives the tracker; its jobs arrive in arrival order
  // (file order at ties) unless ExpectJobsAdded or SetSource.
  JobTracker(const Workload& workload, JobEvents& events);

  // SetSource: take the jobs from `source` (whose workload() is the one
  // given above; it outlives the tracker); before the first arrival.
  void SetSource(JobSource& source) { source_ = &source; }
  // ReleaseGrace: an ended job is released once `grace_us` of simulated time
  // has passed since its end, when `batch` jobs are due at once (a release
  // makes the source wait for the schedule checker's thread).
  static constexpr TimeUs kDefaultReleaseGraceUs = 60 * kUsPerSecond;
  static constexpr size_t kDefaultReleaseBatch = 256;
  void SetReleaseGrace(TimeUs grace_us, size_t batch) {
    release_grace_us_ = grace_us;
    release_batch_ = batch;
  }

  // Release: ended jobs' run state goes now, with the source's copy of their
  // stages, as it goes after the grace in a simulated run (ReleaseEnded):
  // run() then shows the stub. For a live run (ExpectJobsAdded), whose owner
  // decides when an ended job is no longer needed (the runtime's retention);
  // jobs still active, not arrived, or released already are skipped.
  void Release(std::span<const JobId> ids);

  // ExpectJobsAdded: jobs come one by one (AddJob), not from the workload's
  // list (the runtime); before the first arrival.
  void ExpectJobsAdded();
  // AddJob: one more job (already in the workload) will arrive.
  void AddJob();
  // FirstArrival: the job that arrives first, if any; NextArrival: the one
  // after the last asked for (each is asked for once, when a job arrives).
  std::optional<JobId> FirstArrival();
  std::optional<JobId> NextArrival();

  // Arrive: job `id` arrives now and is active; nothing of it is ready yet.
  void Arrive(JobId id);
  // ReleaseRoots: the stages without parents are released now.
  void ReleaseRoots(JobId id, TimeUs now);
  // Recover: the job's attempts that ended before it arrived here (journal
  // recovery): ok tasks are done, attempt numbers and failures go on from
  // them; then the stages whose parents allow it are released (or the job
  // completes). Returns how many tasks it marked done.
  uint64_t Recover(JobId id, std::span<const AttemptRecord> history, TimeUs now);

  // MakeReady: task t (blocked) becomes ready; notify: tell at once.
  void MakeReady(const TaskRef& t, bool notify, TimeUs now);
  // TaskDone: the task's attempt ended ok on machine `where`.
  void TaskDone(const TaskRef& t, TimeUs now, MachineId where);
  // Outputs: where the done tasks of the job's stage left their output, as
  // (machine, tasks); empty unless a shuffle child of the stage copies bytes.
  std::span<const std::pair<MachineId, uint32_t>> Outputs(JobId id, uint32_t stage) const;

  // Launched: ready task t is launched in attempt `slot`. Returns its
  // attempt number and when it became ready.
  // (Inline, as Started: on every attempt's path.)
  std::pair<uint32_t, TimeUs> Launched(const TaskRef& t, uint32_t slot) {
    JobRun& jr = *jobs_[t.job.value()];
    const uint64_t k = jr.progress->stage_offset[t.stage] + t.index;
    policy::StageProgress& sp = jr.progress->stages[t.stage];
    jr.progress->state(t) = policy::TaskState::kLaunched;
    --sp.ready;
    ++sp.running;
    const uint32_t attempt_no = jr.attempts[k];
    if (jr.attempts[k] < 255) ++jr.attempts[k];
    jr.slot[k] = slot;
    return {attempt_no, jr.task_ready_us.empty() ? jr.stage_ready_us[t.stage] : jr.task_ready_us[k]};
  }
  // Started: the task's attempt reached its machine at `now`.
  void Started(const TaskRef& t, TimeUs now) {
    JobRun& jr = *jobs_[t.job.value()];
    jr.first_start_us = jr.first_start_us < 0 ? now : jr.first_start_us;
    jr.progress->state(t) = policy::TaskState::kRunning;
  }
  // AttemptEnded: the task's attempt (which ran `ran_us`) ended with
  // `outcome`; the task is blocked until the caller decides (retry: ready
  // again; job_fails: the job fails; else abandoned, or done when ok).
  struct EndVerdict {
    bool retry = false;
    bool job_fails = false;
  };
  EndVerdict AttemptEnded(const TaskRef& t, Outcome outcome, TimeUs ran_us, uint32_t max_attempts) {
    JobRun& jr = *jobs_[t.job.value()];
    const uint64_t k = jr.progress->stage_offset[t.stage] + t.index;
    jr.slot[k] = kNoAttempt;
    policy::StageProgress& sp = jr.progress->stages[t.stage];
    --sp.running;
    if (outcome == Outcome::kOk) {
      ++sp.learned_count;
      sp.learned_total_us += ran_us;
    }
    EndVerdict verdict;
    if (outcome == Outcome::kFailed) {
      ++jr.failures[k];
      verdict.job_fails = jr.failures[k] >= max_attempts;
      verdict.retry = !verdict.job_fails && !jr.progress->failed;
    } else if (outcome == Outcome::kKilled) {
      verdict.retry = !jr.progress->failed;
    }
    jr.progress->state(t) = policy::TaskState::kBlocked;  // until the caller decides
    return verdict;
  }
  // Abandon: the task will not run again.
  void Abandon(const TaskRef& t) { jobs_[t.job.value()]->progress->state(t) = policy::TaskState::kAbandoned; }

  // Shuffles waiting on their stage's last parent task (sim/shuffle.cc).
  void AddShuffling(const TaskRef& t, uint32_t slot, uint32_t generation);
  // Shuffling: those waiting in the stage (empty when none ever waited).
  std::span<const std::pair<uint32_t, uint32_t>> Shuffling(JobId id, uint32_t stage) const;
  std::vector<std::pair<uint32_t, uint32_t>> TakeShuffling(JobId id, uint32_t stage);

  // A job's end, in three steps around the engine's stopping of what it
  // runs: MarkFailed (so that nothing it stops is retried), AbandonUndone,
  // then Finish, which frees its per-task state; Finish returns when its
  // first task started (its arrival when none did).
  void MarkFailed(JobId id) { jobs_[id.value()]->progress->failed = true; }
  void AbandonUndone(JobId id);
  TimeUs Finish(JobId id);

  // Reading.
  bool active(JobId id) const {
    return id.valid() && id.value() < jobs_.size() && jobs_[id.value()] && jobs_[id.value()]->active;
  }
  // run: the job's run state (a released job's is a stub: finished, no
  // tasks); nullptr before it arrives or for an id out of range.
  const JobRun* run(JobId id) const {
    // Inline: every JobView a role asks for comes through here. A held run
    // first; before arrival and after release, ReleasedOrNone.
    if (id.valid() && id.value() < jobs_.size()) {
      if (const JobRun* held = jobs_[id.value()].get()) return held;
    }
    return ReleasedOrNone(id);
  }
  const policy::JobProgress& progress(JobId id) const { return *run(id)->progress; }
  policy::TaskState state(const TaskRef& t) const { return jobs_[t.job.value()]->progress->state(t); }
  // SlotOf: the attempt slot of launched or running task t (kNoAttempt when
  // none); SlotAt: by the task's index within its job.
  uint32_t SlotOf(const TaskRef& t) const {
    const JobRun& jr = *jobs_[t.job.value()];
    return jr.slot[jr.progress->stage_offset[t.stage] + t.index];
  }
  uint32_t SlotAt(JobId id, uint64_t k) const { return jobs_[id.value()]->slot[k]; }
  uint64_t num_tasks(JobId id) const { return jobs_[id.value()]->slot.size(); }
  std::span<const JobId> active_jobs() const { return active_jobs_; }
  uint64_t unfinished() const { return unfinished_; }
  size_t size() const { return jobs_.size(); }
  // held_pages: pages of per-job state held (for tests of what a released
  // job costs).
  size_t held_pages() const { return jobs_.held_pages() + released_.held_pages(); }
  // UnfinishedTasks: tasks of jobs that never finished (at the run's end:
  // the jobs that never arrived are taken from the source to count them).
  uint64_t UnfinishedTasks();
  // LiveRuns: jobs whose run state is held (arrived and not released).
  uint64_t LiveRuns() const { return live_runs_; }

 private:
  // AddOutput: task t's output is on `where` (kept when a shuffle copies it).
  void AddOutput(JobRun& jr, const TaskRef& t, MachineId where);
  // ReleasedOrNone: the stub of a released job, else nullptr (not arrived,
  // or an id out of range).
  const JobRun* ReleasedOrNone(JobId id) const;
  void ReleaseStage(JobId id, uint32_t stage, TimeUs now);
  // Pull: the source's next job, counted as unfinished.
  std::optional<JobId> Pull();
  // ReleaseEnded: release the jobs that ended before now - grace, when
  // enough are due.
  void ReleaseEnded(TimeUs now);
  // Forget: release ended, held jobs (the source's stages first).
  void Forget(std::span<const JobId> ids);

  const Workload& w_;
  JobEvents& events_;
  std::unique_ptr<WorkloadSource> own_source_;  // when no source was set
  JobSource* source_ = nullptr;
  bool live_ = false;  // ExpectJobsAdded: jobs come by AddJob
  std::optional<JobId> first_;
  bool first_pulled_ = false;
  std::vector<JobId> pulled_;  // taken from the source, not arrived (the next arrival, one at a time)
  static constexpr TimeUs kUnstamped = -1;
  // Per job: its run state from arrival until released (null before and
  // after). Paged (core/paged_store.h), as released_: a long-lived
  // scheduler releases jobs forever (issue 20), and a page whose jobs are
  // all released goes, so what stays per released job is its share of the
  // page tables (under 0.1 byte).
  PagedStore<std::unique_ptr<JobRun>> jobs_;
  // Per job: 0, or once released 1 + failed. A job released ok is freed
  // here, reading as 1 (the freed value), so only pages that hold a job not
  // yet released or one that failed stay.
  PagedStore<uint8_t> released_{1};
  JobRun released_ok_, released_failed_;  // what run() shows of a released job
  std::deque<std::pair<JobId, TimeUs>> ended_;  // ended, not released, by end time
  size_t due_ = 0;  // ended_'s first due_ are past their grace
  TimeUs release_grace_us_ = kDefaultReleaseGraceUs;
  size_t release_batch_ = kDefaultReleaseBatch;
  uint64_t live_runs_ = 0;
  std::vector<JobId> active_jobs_;
  uint64_t unfinished_ = 0;
};

}  // namespace weft::sim
