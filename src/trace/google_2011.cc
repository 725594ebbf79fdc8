#include "trace/google_2011.h"

#include <algorithm>
#include <map>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/kept_indexes.h"
#include "trace/row_reader.h"
#include "trace/task_groups.h"
#include "trace/trace_files.h"

namespace weft {
namespace {

using nlohmann::json;

enum EventType : int64_t { kSubmit = 0, kSchedule = 1, kEvict = 2, kFail = 3, kFinish = 4, kKill = 5, kLost = 6 };
constexpr int64_t kNoTime = -1;

struct TaskState {
  int64_t submit_us = kNoTime;
  int64_t schedule_us = kNoTime;  // the last SCHEDULE
  int64_t last_us = kNoTime;      // the time of its last row read
  int64_t run_us = 0;             // FINISH - last SCHEDULE at the last FINISH
  int64_t end_event = -1;
  double cpu = -1, mem = -1;      // the last request given; -1: none yet
};

struct JobState {
  std::string user;
  int64_t priority = 0;
  int64_t first_submit_us = kNoTime;  // the first SUBMIT row's time: no kept task is submitted before
  int64_t last_us = kNoTime;          // the time of its last row read
  absl::flat_hash_map<int64_t, TaskState> tasks;
};

// What the first pass over task_events knows of a job with a kept task.
struct JobIndex {
  static constexpr uint32_t kEveryTask = UINT32_MAX;

  int64_t arrival_us = 0;  // its earliest kept SUBMIT
  // When the second pass may pass the job: the time of its kept tasks' last
  // row; or, when it holds every task of the job, of the job's last row the
  // rules read (later rows are late).
  int64_t pass_us = 0;
  int64_t priority = 0;  // the job's priority as its last row gives it
  // Which tasks the second pass holds: its kept ones, in the reader's
  // kept_sets_; or kEveryTask when all its tasks are kept, or when the kept
  // ones are too sparse for a bit each (the rules then run again on all).
  uint32_t kept_set = kEveryTask;
};

struct Usage {
  double cpu_time = 0, mem_time = 0, seconds = 0;
};

constexpr std::string_view kSkipBeforeFiles = "tasks submitted before the files start";
constexpr std::string_view kSkipUnfinished = "tasks not finished in the files (killed, failed, evicted, lost or running)";
constexpr std::string_view kSkipNoRequest = "tasks without a cpu or memory request";
constexpr std::string_view kSkipNoTasks = "jobs with no task kept";
constexpr std::string_view kSkipLate = "task events after their job ended";

// The published cell: 12,583 machines (Reiss et al., the trace's documentation).
constexpr uint64_t kCellMachines = 12583;

absl::StatusOr<json> ReadMachines(const std::vector<std::string>& files, TraceReport& report) {
  // machine_id -> (cpus, memory) while present.
  std::map<int64_t, std::pair<double, double>> machines;
  RETURN_IF_ERROR(ForEachRow(files, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    RETURN_IF_ERROR(rows.RefuseHeader("google-2011 machine_events"));
    RETURN_IF_ERROR(rows.ExpectColumns(6, "google-2011 machine_events"));
    RETURN_IF_ERROR(rows.Int(0, "time").status());
    ASSIGN_OR_RETURN(const int64_t id, rows.Int(1, "machine_id"));
    ASSIGN_OR_RETURN(const int64_t type, rows.Int(2, "event_type"));
    ASSIGN_OR_RETURN(const std::optional<double> cpus, rows.OptionalNumber(4, "cpus"));
    ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(5, "memory"));
    if (type == 1) {
      machines.erase(id);
    } else if (type == 0 || type == 2) {
      if (!cpus || !mem) {
        report.Skip("machine events without a capacity", 1, fmt::format("{} row {}", rows.file(), rows.row_number()));
        return absl::OkStatus();
      }
      machines[id] = {*cpus, *mem};
    } else {
      return rows.ColumnError(2, "event_type", fmt::format("{} is not 0 (ADD), 1 (REMOVE) or 2 (UPDATE)", type));
    }
    return absl::OkStatus();
  }));
  json out = GroupsByCapacity(machines);
  if (out.empty()) return absl::InvalidArgumentError(fmt::format("{}: no machine with a capacity", files.front()));
  return out;
}

absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>> ReadJobEnds(const std::vector<std::string>& files,
                                                                 TraceReport& report) {
  absl::flat_hash_map<int64_t, int64_t> ends;
  RETURN_IF_ERROR(ForEachRow(files, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    RETURN_IF_ERROR(rows.RefuseHeader("google-2011 job_events"));
    RETURN_IF_ERROR(rows.ExpectColumns(8, "google-2011 job_events"));
    ASSIGN_OR_RETURN(const int64_t time, rows.Int(0, "time"));
    ASSIGN_OR_RETURN(const int64_t job, rows.Int(2, "job_id"));
    ASSIGN_OR_RETURN(const int64_t type, rows.Int(3, "event_type"));
    if (type < 0 || type > 8) return rows.ColumnError(3, "event_type", fmt::format("{} is not 0..8", type));
    if (type >= kEvict && type <= kLost) ends[job] = time;
    return absl::OkStatus();
  }));
  return ends;
}

absl::StatusOr<absl::flat_hash_map<std::pair<int64_t, int64_t>, Usage>> ReadUsage(const std::vector<std::string>& files,
                                                                                 TraceReport& report) {
  absl::flat_hash_map<std::pair<int64_t, int64_t>, Usage> usage;
  RETURN_IF_ERROR(ForEachRow(files, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    RETURN_IF_ERROR(rows.RefuseHeader("google-2011 task_usage"));
    // Schema 2.1 has 20 columns; earlier exports lack the last (sampled cpu usage).
    if (rows.size() != 19) RETURN_IF_ERROR(rows.ExpectColumns(20, "google-2011 task_usage"));
    ASSIGN_OR_RETURN(const int64_t start, rows.Int(0, "start_time"));
    ASSIGN_OR_RETURN(const int64_t end, rows.Int(1, "end_time"));
    ASSIGN_OR_RETURN(const int64_t job, rows.Int(2, "job_id"));
    ASSIGN_OR_RETURN(const int64_t task, rows.Int(3, "task_index"));
    ASSIGN_OR_RETURN(const std::optional<double> cpu, rows.OptionalNumber(5, "cpu_rate"));
    ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(6, "canonical_memory_usage"));
    if (end <= start) return rows.ColumnError(1, "end_time", "is not after start_time");
    if (!cpu || !mem) {
      report.Skip("task_usage rows without cpu or memory", 1, fmt::format("{} row {}", rows.file(), rows.row_number()));
      return absl::OkStatus();
    }
    Usage& u = usage[{job, task}];
    const double seconds = Seconds(end - start);
    u.cpu_time += *cpu * seconds;
    u.mem_time += *mem * seconds;
    u.seconds += seconds;
    return absl::OkStatus();
  }));
  return usage;
}

class TaskEventsReader {
 public:
  TaskEventsReader(TraceEmitter& out, absl::flat_hash_map<int64_t, int64_t> ends,
                   absl::flat_hash_map<std::pair<int64_t, int64_t>, Usage> usage)
      : out_(out), ends_(std::move(ends)), usage_(std::move(usage)) {}

  // Read makes two passes over task_events. The first applies the rules
  // (jobs end at their job_events end, so every count and example is as one
  // pass gives) without building jobs, and indexes each job with a kept
  // task: its arrival, its final priority, which of its tasks are kept and
  // the time of their last row. The second holds only the kept tasks of
  // those jobs, passes each job once the stream is past its kept tasks' last
  // row (other tasks of the job may run on: their rows are not read), and
  // states as watermark the earliest arrival of the jobs it holds: a job
  // with no task kept (a service running past the files) holds nothing back.
  // The kept set is stored, not judged again at that row: a task finished
  // then may be resubmitted and end otherwise later.
  absl::Status Read(const std::vector<std::string>& files) {
    RETURN_IF_ERROR(ForEachRow(files, ',', out_.report().rows, [&](const RowReader& rows) { return Row(rows); }));
    // Jobs whose end the files do not show, in order of job id.
    std::vector<int64_t> rest;
    for (const auto& [id, job] : active_) rest.push_back(id);
    std::sort(rest.begin(), rest.end());
    for (int64_t id : rest) RETURN_IF_ERROR(Emit(id));
    // The second pass.
    index_pass_ = false;
    ends_ = {};
    emitted_ = {};
    by_end_ = {};
    submits_ = {};
    last_time_ = 0;
    out_.ExpectJobs(index_.size());
    uint64_t again = 0;
    RETURN_IF_ERROR(ForEachRow(files, ',', again, [&](const RowReader& rows) { return Row(rows); }));
    while (!by_end_.empty()) {
      const int64_t id = by_end_.top().second;
      by_end_.pop();
      RETURN_IF_ERROR(Emit(id));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Row(const RowReader& r) {
    RETURN_IF_ERROR(r.RefuseHeader("google-2011 task_events"));
    RETURN_IF_ERROR(r.ExpectColumns(13, "google-2011 task_events"));
    ASSIGN_OR_RETURN(const int64_t time, r.Int(0, "time"));
    ASSIGN_OR_RETURN(const int64_t job_id, r.Int(2, "job_id"));
    ASSIGN_OR_RETURN(const int64_t index, r.Int(3, "task_index"));
    ASSIGN_OR_RETURN(const int64_t type, r.Int(5, "event_type"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> priority, r.OptionalInt(8, "priority"));
    ASSIGN_OR_RETURN(const std::optional<double> cpu, r.OptionalNumber(9, "cpu_request"));
    ASSIGN_OR_RETURN(const std::optional<double> mem, r.OptionalNumber(10, "memory_request"));
    if (type < 0 || type > 8) return r.ColumnError(5, "event_type", fmt::format("{} is not 0..8", type));
    if (time < last_time_) return r.ColumnError(0, "time", "goes back in time: parts must be given in order");
    last_time_ = time;
    RETURN_IF_ERROR(EmitEndedBy(time));
    const auto indexed = index_pass_ ? index_.end() : index_.find(job_id);
    if (emitted_.contains(job_id)) {
      if (index_pass_) out_.report().Skip(kSkipLate, 1, fmt::format("{} row {}", r.file(), r.row_number()));
      return absl::OkStatus();
    }
    if (!index_pass_ && indexed == index_.end()) return absl::OkStatus();  // no task of it is kept
    auto [it, added] = active_.try_emplace(job_id);
    JobState& job = it->second;
    if (added) {
      job.user = r.view(6);
      if (index_pass_) {
        const auto end = ends_.find(job_id);
        if (end != ends_.end()) by_end_.push({end->second, job_id});
      } else {
        // In the second pass by_end_ orders the jobs by when they may pass,
        // and submits_ by their arrival.
        job.priority = indexed->second.priority;
        by_end_.push({indexed->second.pass_us, job_id});
        submits_.push({indexed->second.arrival_us, job_id});
      }
    }
    if (index_pass_) {
      job.last_us = time;
      if (priority) job.priority = *priority;
    } else if (const uint32_t set = indexed->second.kept_set;
               set != JobIndex::kEveryTask && !kept_sets_[set].Holds(index)) {
      return absl::OkStatus();  // a task not kept
    }
    TaskState& task = job.tasks[index];
    task.last_us = time;
    if (cpu) task.cpu = *cpu;
    if (mem) task.mem = *mem;
    switch (type) {
      case kSubmit:
        if (task.submit_us == kNoTime) task.submit_us = time;
        if (job.first_submit_us == kNoTime) {
          job.first_submit_us = time;
          if (index_pass_) submits_.push({time, job_id});
        }
        break;
      case kSchedule:
        task.schedule_us = time;
        break;
      case kFinish:
        task.run_us = task.schedule_us == kNoTime ? -1 : time - task.schedule_us;
        [[fallthrough]];
      case kEvict:
      case kFail:
      case kKill:
      case kLost:
        task.end_event = type;
        break;
      default:
        break;  // UPDATE_PENDING / UPDATE_RUNNING change only requests
    }
    return absl::OkStatus();
  }

  // EmitEndedBy passes on every job whose end (first pass: in job_events;
  // second pass: its last row read) is before `time`.
  absl::Status EmitEndedBy(int64_t time) {
    while (!by_end_.empty() && by_end_.top().first < time) {
      const int64_t id = by_end_.top().second;
      by_end_.pop();
      RETURN_IF_ERROR(Emit(id));
    }
    return absl::OkStatus();
  }

  absl::Status Emit(int64_t id) {
    auto node = active_.extract(id);
    if (node.empty()) return absl::OkStatus();
    emitted_.insert(id);
    JobState& job = node.mapped();
    // The skips were counted by the first pass.
    TraceReport again;
    TraceReport& report = index_pass_ ? out_.report() : again;
    std::vector<TraceTask> kept;
    int64_t arrival_us = -1;
    for (const auto& [index, t] : job.tasks) {
      if (t.submit_us == kNoTime) {
        report.Skip(kSkipBeforeFiles, 1, fmt::format("job {} task {}", id, index));
      } else if (t.end_event != kFinish || t.run_us < 0) {
        report.Skip(kSkipUnfinished, 1, fmt::format("job {} task {}", id, index));
      } else if (t.cpu < 0 || t.mem < 0) {
        report.Skip(kSkipNoRequest, 1, fmt::format("job {} task {}", id, index));
      } else {
        TraceTask task{.index = index, .duration_us = std::max<int64_t>(1, t.run_us), .cpu = t.cpu, .mem = t.mem};
        if (const auto u = usage_.find({id, index}); u != usage_.end() && u->second.seconds > 0) {
          task.has_usage = true;
          task.cpu_used = u->second.cpu_time / u->second.seconds;
          task.mem_used = u->second.mem_time / u->second.seconds;
        }
        kept.push_back(task);
        arrival_us = arrival_us < 0 ? t.submit_us : std::min(arrival_us, t.submit_us);
      }
    }
    if (kept.empty()) {
      report.Skip(kSkipNoTasks, 1, fmt::format("job {}", id));
      return absl::OkStatus();
    }
    if (index_pass_) {
      index_[id] = IndexOf(job, kept, arrival_us);
      return absl::OkStatus();
    }
    json j = {{"name", std::to_string(id)}, {"user", job.user.empty() ? "default" : job.user},
              {"priority", job.priority}, {"stages", BagStages(kept, out_.options().stage_per_job, out_.report())}};
    RETURN_IF_ERROR(out_.Job(std::move(j), Seconds(arrival_us)));
    out_.NoArrivalBefore(Seconds(NoArrivalBeforeUs()));
    return absl::OkStatus();
  }

  // IndexOf: what the second pass needs of a job with kept tasks `kept`.
  JobIndex IndexOf(const JobState& job, const std::vector<TraceTask>& kept, int64_t arrival_us) {
    JobIndex index{.arrival_us = arrival_us, .pass_us = job.last_us, .priority = job.priority};
    if (kept.size() == job.tasks.size() || kept_sets_.size() == JobIndex::kEveryTask) return index;
    int64_t lo = kept.front().index, hi = lo, pass_us = 0;
    for (const TraceTask& t : kept) {
      lo = std::min(lo, t.index);
      hi = std::max(hi, t.index);
      pass_us = std::max(pass_us, job.tasks.at(t.index).last_us);
    }
    KeptIndexes set(lo, hi, kept.size());
    if (!set.exact()) return index;
    for (const TraceTask& t : kept) set.Add(t.index);
    index.pass_us = pass_us;
    index.kept_set = static_cast<uint32_t>(kept_sets_.size());
    kept_sets_.push_back(std::move(set));
    return index;
  }

  // NoArrivalBeforeUs: no job passed from now on arrives earlier. Jobs are
  // passed after their kept tasks' last row, so one whose kept task still
  // runs in the trace holds this back to its arrival (known from the first
  // pass); only jobs with a kept task are held. A job not seen yet arrives at the current row's time
  // or later (rows are in time order).
  int64_t NoArrivalBeforeUs() {
    while (!submits_.empty()) {
      const auto [time, id] = submits_.top();
      if (active_.contains(id)) return std::min(time, last_time_);
      submits_.pop();  // passed already
    }
    return last_time_;
  }

  TraceEmitter& out_;
  absl::flat_hash_map<int64_t, int64_t> ends_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, Usage> usage_;
  absl::flat_hash_map<int64_t, JobState> active_;
  absl::flat_hash_set<int64_t> emitted_;
  bool index_pass_ = true;
  absl::flat_hash_map<int64_t, JobIndex> index_;  // jobs with a kept task (32 bytes a job)
  std::vector<KeptIndexes> kept_sets_;            // of the indexed jobs with a task not kept
  std::priority_queue<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>, std::greater<>> by_end_;
  // Each active job's first SUBMIT (time, job id), earliest first; entries
  // of jobs passed since are dropped when they come up.
  std::priority_queue<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>, std::greater<>> submits_;
  int64_t last_time_ = 0;
};

}  // namespace

absl::Status ReadGoogle2011(const std::vector<std::string>& paths, TraceEmitter& out) {
  ASSIGN_OR_RETURN(auto tables,
                   TablesOf(paths, {"task_events", "job_events", "machine_events", "task_usage"}, "google-2011"));
  if (tables["task_events"].empty()) {
    return absl::InvalidArgumentError(fmt::format("google-2011: no task_events file under {}", paths.front()));
  }
  TraceReport& report = out.report();
  json cluster;
  if (!tables["machine_events"].empty()) {
    ASSIGN_OR_RETURN(cluster, ReadMachines(tables["machine_events"], report));
  } else {
    cluster = json::array({MachineGroup("m", kCellMachines, {{"cpu", 1.0}, {"mem", 1.0}})});
  }
  RETURN_IF_ERROR(out.Cluster(std::move(cluster)));
  ASSIGN_OR_RETURN(auto ends, ReadJobEnds(tables["job_events"], report));
  ASSIGN_OR_RETURN(auto usage, ReadUsage(tables["task_usage"], report));
  TaskEventsReader reader(out, std::move(ends), std::move(usage));
  return reader.Read(tables["task_events"]);
}

}  // namespace weft
