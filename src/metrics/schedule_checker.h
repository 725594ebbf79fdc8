// File: metrics/schedule_checker.h
//
// ScheduleChecker: an independent referee for a simulation run. It observes
// the records a run emits (metrics/records.h) and re-derives, from those
// records and the workload alone, whether the schedule was legal:
//   - every attempt names a task of the workload; it starts no earlier than
//     its job's arrival and its own ready time, and ends no earlier than it
//     starts;
//   - when an attempt starts, every parent of its task is done (a barrier
//     parent stage: all its tasks ended ok; a pipelined parent: task i ended
//     ok), the task is not already done and no other attempt of it runs;
//   - the demands of the attempts running on a machine never exceed its
//     capacity (unless overbooking is allowed), and a single attempt's demand
//     always fits its machine;
//   - no task ends ok twice; a job that ends as succeeded had every task end
//     ok exactly once; every job has ended when the run ends;
//   - every end of a started attempt matches a running attempt (same task,
//     attempt number, machine and start time), and records arrive in
//     simulated-time order.
// It shares no bookkeeping with the simulator. Per-task state is allocated at
// a job's first record and freed at its OnJobEnd, so memory stays
// proportional to the active jobs (plus one byte per job and per machine
// state), not to the whole trace.
//
// Threading: not thread-safe. Feed one instance from the thread that runs the
// simulation; read the results after OnRunEnd.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/ids.h"
#include "core/time.h"
#include "metrics/records.h"
#include "model/resources.h"
#include "model/workload.h"

namespace weft {

class ScheduleChecker : public RunObserver {
 public:
  // The most violation messages kept; violation_count() counts them all.
  static constexpr size_t kMaxMessages = 20;

  // `workload` must outlive the checker. For the resources in `overbooked`,
  // the sum of the demands on a machine may exceed its capacity (a single
  // demand may still not).
  ScheduleChecker(const Workload& workload, ResourceMask overbooked);

  void OnAttemptStart(const AttemptStart& start) override;
  void OnAttemptEnd(const AttemptRecord& record) override;
  void OnJobEnd(const JobRecord& record) override;
  void OnRunEnd(TimeUs end_us) override;

  bool ok() const { return violation_count_ == 0; }
  // The first kMaxMessages violations, one line each, in the order found.
  const std::vector<std::string>& violations() const { return messages_; }
  uint64_t violation_count() const { return violation_count_; }

 private:
  // What the checker knows about one task of an active job.
  struct TaskState {
    uint8_t ok_ends = 0;  // attempts that ended ok, saturating at 255
    uint8_t running = 0;  // attempts running now, saturating at 255
  };
  // Per-task state of a job that has had a record and has not ended yet.
  struct JobState {
    std::vector<size_t> stage_offset;  // index of the stage's first task in `tasks`
    std::vector<uint32_t> stage_done;  // tasks of the stage that ended ok
    std::vector<TaskState> tasks;
  };
  enum class JobPhase : uint8_t { kNotSeen, kActive, kEnded };

  struct RunningKey {
    TaskRef task;
    uint32_t attempt = 0;
    friend bool operator==(const RunningKey&, const RunningKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const RunningKey& k) {
      return H::combine(std::move(h), k.task.job.value(), k.task.stage, k.task.index, k.attempt);
    }
  };
  struct Running {
    MachineId machine;
    TimeUs start_us = 0;
    Resources demand;
    bool after_job_end = false;  // started after its job ended (already reported)
  };

  // Report records one violation.
  void Report(std::string message);
  // CheckOrder reports a record at `time_us` earlier than the previous one.
  void CheckOrder(TimeUs time_us, const char* what);
  // ValidTask reports and returns false when `task` is not in the workload.
  bool ValidTask(const TaskRef& task, TimeUs time_us, const char* what);
  // ActiveJob returns the state of `job`, allocating it at the first record;
  // nullptr once the job has ended.
  JobState* ActiveJob(JobId job);
  TaskState& Task(JobState& state, const TaskRef& task) {
    return state.tasks[state.stage_offset[task.stage] + task.index];
  }
  // CheckParents reports each parent of `task` that is not done at `time_us`.
  void CheckParents(JobState& state, const TaskRef& task, MachineId machine, TimeUs time_us);
  // Describe renders `job "q1" stage "agg" task 3`.
  std::string Describe(const TaskRef& task) const;
  std::string MachineName(MachineId machine) const;
  bool ValidMachine(MachineId machine) const {
    return machine.valid() && machine.value() < machine_held_.size();
  }

  const Workload& workload_;
  const ResourceMask overbooked_;
  std::vector<Resources> machine_held_;             // sum of running demands, per machine
  std::vector<JobPhase> job_phase_;                 // per job
  absl::flat_hash_map<uint32_t, JobState> active_;  // by job id
  absl::flat_hash_map<RunningKey, Running> running_;
  TimeUs last_time_us_ = 0;
  bool run_ended_ = false;
  std::vector<std::string> messages_;
  uint64_t violation_count_ = 0;
};

}  // namespace weft
