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
//     ok; a shuffle parent: its slow-start threshold of tasks ended ok), the
//     task is not already done and no other attempt of it runs; an attempt
//     behind a shuffle edge ends ok only after every task of that parent did;
//   - the demands of the attempts running on a machine never exceed its
//     capacity (unless overbooking is allowed), and a single attempt's demand
//     always fits its machine; an attempt with profiled phases reserves its
//     first phase's demand at its start and each later phase's from the
//     reservation change the run reports for it;
//   - conservation: in each busy period of a machine (from an attempt's start
//     on an idle machine until it is idle again), the cpu, disk and network
//     its attempts used (the records' usage x duration) are no more than the
//     machine's capacity times the period's length, whatever the policy
//     overbooks: no model delivers more work than a machine has;
//   - links: in each period of a network link (a machine's interface out or
//     in, a rack's uplink out or in; docs/model.md, "Flows") made of the
//     flows that cross it overlapping one another, the MB they carried are
//     no more than the link's capacity times the period's length; a flow
//     names two machines of the cluster and ends no earlier than it starts;
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
// Threading: feed one instance from one thread (the one that runs the
// simulation). With `concurrent`, the checking itself runs on a second thread
// of the checker's own: records are copied into batches of kBatchRecords and
// handed over, and checked in the order they came, so the verdict is the same
// as checking inline. The results (ok, violations) may be read at any time
// from the feeding thread: reading waits until every record fed so far has
// been checked. A run shorter than one batch never starts the thread.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <variant>
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

  // Records handed to the checking thread at a time.
  static constexpr size_t kBatchRecords = 8192;

  // `workload` must outlive the checker. For the resources in `overbooked`,
  // the sum of the demands on a machine may exceed its capacity (a single
  // demand may still not). `concurrent`: check on a second thread (see
  // above); ignored on a machine with one core.
  ScheduleChecker(const Workload& workload, ResourceMask overbooked, bool concurrent = true);
  ~ScheduleChecker() override;
  ScheduleChecker(const ScheduleChecker&) = delete;
  ScheduleChecker& operator=(const ScheduleChecker&) = delete;

  void OnAttemptStart(const AttemptStart& start) override { Push(start); }
  void OnAttemptEnd(const AttemptRecord& record) override { Push(record); }
  void OnJobEnd(const JobRecord& record) override { Push(record); }
  void OnReservationChange(const ReservationChange& change) override { Push(change); }
  void OnFlowEnd(const FlowRecord& record) override { Push(record); }
  // OnRunEnd also waits until every record has been checked.
  void OnRunEnd(TimeUs end_us) override;
  // Flush returns once every record fed so far has been checked: the sync
  // of a JobSource (model/job_source.h) that moves or frees jobs the checking
  // thread may be reading.
  void Flush() { Drain(); }

  bool ok() const { return violation_count() == 0; }
  // The first kMaxMessages violations, one line each, in the order found.
  const std::vector<std::string>& violations() const {
    Sync();
    return messages_;
  }
  uint64_t violation_count() const {
    Sync();
    return violation_count_;
  }

 private:
  // One record as fed; TimeUs is the run's end.
  using Record = std::variant<AttemptStart, AttemptRecord, JobRecord, ReservationChange, FlowRecord, TimeUs>;
  void Push(Record record);
  // HandOver gives the pending batch to the checking thread, starting it the
  // first time; waits while the thread still has an unclaimed batch.
  void HandOver();
  // Drain returns once every record fed so far has been checked.
  void Drain();
  // Sync: Drain for the const accessors (the records are logically part of
  // the state already; checking them is catching up, not a change).
  void Sync() const { const_cast<ScheduleChecker*>(this)->Drain(); }
  void Work();
  void Apply(const Record& record);

  // The checks, on whichever thread checks (never two at once).
  void CheckStart(const AttemptStart& start);
  void CheckEnd(const AttemptRecord& record);
  void CheckJobEnd(const JobRecord& record);
  void CheckReservation(const ReservationChange& change);
  void CheckRunEnd(TimeUs end_us);
  void CheckFlow(const FlowRecord& record);
  // CheckLink counts a flow on link `link` (index into links_) and checks
  // the period of overlapping flows it belongs to.
  void CheckLink(size_t link, const FlowRecord& record, const std::string& name);

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
    Resources demand;         // held now
    Resources start_demand;   // held at the start (differs for profiled phases)
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
  // CheckShuffleEnd reports an ok end of a task behind a shuffle edge before
  // every task of that parent stage ended ok.
  void CheckShuffleEnd(const JobState& state, const AttemptRecord& record);
  // CheckRemoteRead reports an ok end of a task placed off its input's
  // machines sooner after its start than its remote read (the locality cost,
  // model/locality.h): with the cost on, such a task waits that long first.
  void CheckRemoteRead(const AttemptRecord& record);
  // CheckDelivered counts what an ended attempt used towards the busy period
  // of the machine it ran on, and checks the period when it ends.
  void CheckDelivered(MachineId machine, const AttemptRecord& record);
  // Describe renders `job "q1" stage "agg" task 3`.
  std::string Describe(const TaskRef& task) const;
  std::string MachineName(MachineId machine) const;
  bool ValidMachine(MachineId machine) const {
    return machine.valid() && machine.value() < machine_held_.size();
  }

  const Workload& workload_;
  const ResourceMask overbooked_;
  std::vector<Resources> machine_held_;             // sum of running demands, per machine
  // What a machine's attempts used in its current busy period.
  struct BusyPeriod {
    uint32_t running = 0;  // attempts started and not ended
    TimeUs from_us = 0;
    std::array<double, kNumResources> used{};  // micro-units x microseconds
    double rounding = 0;  // the records' usage is rounded to a micro-unit: what that can add
  };
  std::vector<BusyPeriod> busy_periods_;            // per machine
  // A link's recent periods of overlapping flows, oldest first, disjoint;
  // the list is bounded (kLinkPeriods): dropping an old period can only
  // miss a violation, never report a false one.
  struct LinkPeriod {
    TimeUs from_us = 0;
    TimeUs to_us = 0;
    double mb = 0;
  };
  static constexpr size_t kLinkPeriods = 64;
  struct Link {
    double mbps = 0;  // 0: not modelled (a machine without net, non-blocking racks)
    std::vector<LinkPeriod> periods;
  };
  // Per machine its interface out (2m) and in (2m + 1), then per rack its
  // uplink out and in.
  std::vector<Link> links_;
  std::vector<JobPhase> job_phase_;                 // per job known so far
  // Jobs in the workload when the batch being checked was handed over (the
  // workload grows on the feeding thread as jobs arrive from a JobSource).
  size_t jobs_known_ = 0;
  absl::flat_hash_map<uint32_t, JobState> active_;  // by job id
  absl::flat_hash_map<RunningKey, Running> running_;
  TimeUs last_time_us_ = 0;
  bool run_ended_ = false;
  std::vector<std::string> messages_;
  uint64_t violation_count_ = 0;

  // The hand-over. pending_ is the feeding thread's alone; handed_,
  // batch_ready_, busy_ and stop_ are guarded by mu_.
  const bool concurrent_;
  std::vector<Record> pending_;
  std::vector<Record> handed_;
  size_t handed_jobs_ = 0;    // jobs_known_ for handed_
  bool batch_ready_ = false;  // handed_ holds a batch the thread has not taken
  bool busy_ = false;         // the thread is checking a batch
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace weft
