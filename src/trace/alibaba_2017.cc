#include "trace/alibaba_2017.h"

#include <algorithm>
#include <optional>
#include <span>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/alibaba_instances.h"
#include "trace/arrival_batches.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using nlohmann::json;

struct TaskRecord {
  int64_t task_id = 0;
  int64_t instances = 0;
  int64_t create_s = 0;
  int64_t seconds = 0;
  double cpu = 0, mem = 0;
  uint64_t order = 0;  // the row's place in the files, to break ties
};

constexpr std::string_view kTable = "alibaba-2017 batch_task";

// A row, parsed: the header (neither), a kept task, or the reason it is skipped.
struct Row {
  int64_t job = 0;
  std::optional<TaskRecord> task;
  std::string_view skip;
};

absl::StatusOr<std::optional<Row>> ParseRow(const RowReader& rows) {
  RETURN_IF_ERROR(rows.ExpectColumns(8, kTable));
  if (rows.row_number() == 1 && !ParseFiniteNumber(rows.field(0))) return std::optional<Row>();  // the optional header
  ASSIGN_OR_RETURN(const std::optional<int64_t> create, rows.OptionalInt(0, "task_create_time"));
  ASSIGN_OR_RETURN(const std::optional<int64_t> end, rows.OptionalInt(1, "task_end_time"));
  ASSIGN_OR_RETURN(const int64_t job, rows.Int(2, "job_id"));
  ASSIGN_OR_RETURN(const int64_t task, rows.Int(3, "task_id"));
  ASSIGN_OR_RETURN(const std::optional<int64_t> instances, rows.OptionalInt(4, "instance_num"));
  ASSIGN_OR_RETURN(const std::optional<double> cpu, rows.OptionalNumber(6, "plan_cpu"));
  ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(7, "plan_mem"));
  Row row;
  row.job = job;
  if (rows.field(5) != "Terminated") {
    row.skip = "tasks not Terminated";
  } else if (!cpu || !mem || *cpu <= 0 || *mem < 0) {
    row.skip = "tasks without a cpu or memory request";
  } else if (!instances || *instances < 1 || !create || !end || *end < *create) {
    row.skip = "tasks without instances or with an end before their creation";
  } else {
    row.task = TaskRecord{task, *instances, *create, std::max<int64_t>(1, *end - *create), *cpu / 100, *mem, 0};
  }
  return std::optional<Row>(std::move(row));
}

// BuildJob turns a job's kept tasks into its stages: one per task id, the
// earliest-created row of a task listed twice (ties: the first in the files).
json BuildStages(int64_t id, std::vector<TaskRecord>& tasks, TraceReport& report) {
  std::sort(tasks.begin(), tasks.end(), [](const TaskRecord& a, const TaskRecord& b) {
    return std::tie(a.task_id, a.create_s, a.order) < std::tie(b.task_id, b.create_s, b.order);
  });
  json stages = json::array();
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (t > 0 && tasks[t].task_id == tasks[t - 1].task_id) {
      report.Skip("tasks listed twice (the later row)", 1, fmt::format("job {} task {}", id, tasks[t].task_id));
      continue;
    }
    stages.push_back({{"name", fmt::format("t{}", tasks[t].task_id)},
                      {"tasks", tasks[t].instances},
                      {"duration", tasks[t].seconds},
                      {"demand", {{"cpu", tasks[t].cpu}, {"mem", tasks[t].mem}}}});
  }
  return stages;
}

// batch_instance (v2017 schema, 12 columns, no header):
//   start_timestamp,end_timestamp,job_id,task_id,machine_id,status,seq_no,total_seq_no,
//   real_cpu_max,real_cpu_avg,real_mem_max,real_mem_avg
// real_cpu_avg in cores ("cpu numbers": plan_cpu's hundredths are the
// request's unit, not the measurement's), real_mem_avg normalized as
// plan_mem; a time of 0 means not started, not ended, or before the trace.
// Rows without job_id or task_id (a known gap of the trace) are counted.
const BatchInstanceLayout kInstances{
    .table = "alibaba-2017 batch_instance",
    .columns = 12,
    .status = 5, .start = 0, .end = 1, .cpu_avg = 9, .mem_avg = 11,
    .start_name = "start_timestamp", .end_name = "end_timestamp",
    .cpu_avg_name = "real_cpu_avg", .mem_avg_name = "real_mem_avg",
    .cpu_per_core = 1,
    .mem_max = 1,
    .refuse_header = true,
    .zero_time_unknown = true,
    .stage = [](const RowReader& row) -> absl::StatusOr<std::optional<std::pair<std::string, std::string>>> {
      ASSIGN_OR_RETURN(const std::optional<int64_t> job, row.OptionalInt(2, "job_id"));
      ASSIGN_OR_RETURN(const std::optional<int64_t> task, row.OptionalInt(3, "task_id"));
      if (!job || !task) return std::optional<std::pair<std::string, std::string>>();
      return std::optional<std::pair<std::string, std::string>>({std::to_string(*job), fmt::format("t{}", *task)});
    },
};

}  // namespace

absl::Status ReadAlibaba2017(const std::vector<std::string>& all_paths, TraceEmitter& out) {
  std::vector<std::string> paths, instance_files;  // batch_task, batch_instance
  for (const std::string& path : all_paths) (IsInstanceFile(path) ? instance_files : paths).push_back(path);
  if (paths.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("alibaba-2017: give batch_task files (and optionally batch_instance files); only {} given",
                    all_paths.front()));
  }
  RETURN_IF_ERROR(out.Cluster(json::array({MachineGroup("m", 1300, {{"cpu", 64}, {"mem", 1}})})));
  TraceReport& report = out.report();
  // First pass: check every row, count the skips, and index each job with a
  // kept task: its arrival (earliest kept creation) and its kept rows.
  absl::flat_hash_map<int64_t, ArrivalIndexEntry> index;
  RETURN_IF_ERROR(ForEachRow(paths, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    ASSIGN_OR_RETURN(const std::optional<Row> row, ParseRow(rows));
    if (!row) return absl::OkStatus();
    if (!row->task) {
      report.Skip(row->skip, 1, fmt::format("{} row {}", rows.file(), rows.row_number()));
      return absl::OkStatus();
    }
    const auto [it, added] = index.try_emplace(row->job, ArrivalIndexEntry{row->job, row->task->create_s, 0});
    it->second.arrival = std::min(it->second.arrival, row->task->create_s);
    ++it->second.rows;
    return absl::OkStatus();
  }));
  // Jobs in arrival order (ties by job id: the order the engine took them
  // in when they were passed by job id), then in batches of at most
  // max_held_rows kept rows, each collected by a pass over the files.
  std::vector<ArrivalIndexEntry> jobs;
  jobs.reserve(index.size());
  for (const auto& [id, entry] : index) jobs.push_back(entry);
  index = {};
  for (ArrivalIndexEntry& e : jobs) {
    if (e.arrival < 0) report.Note("jobs created before the trace start, arriving at 0");
    e.arrival = std::max<int64_t>(0, e.arrival);
  }
  std::sort(jobs.begin(), jobs.end(), [](const ArrivalIndexEntry& a, const ArrivalIndexEntry& b) {
    return std::tie(a.arrival, a.key) < std::tie(b.arrival, b.key);
  });
  // With batch_instance files, each batch's jobs are built first and their
  // instances read once for the batch; the first such read counts the rows.
  absl::flat_hash_set<std::string> kept;
  if (!instance_files.empty()) {
    for (const ArrivalIndexEntry& e : jobs) kept.insert(std::to_string(e.key));
  }
  bool first = true;
  const std::span<const ArrivalIndexEntry> all(jobs);
  const uint64_t max_rows = out.options().max_held_rows;
  return ForEachBatch(all, max_rows, report, [&](std::span<const ArrivalIndexEntry> batch) -> absl::Status {
    absl::flat_hash_map<int64_t, std::vector<TaskRecord>> tasks;
    for (const ArrivalIndexEntry& e : batch) tasks[e.key].reserve(e.rows);
    uint64_t order = 0;
    RETURN_IF_ERROR(ForEachRow(paths, ',', order, [&](const RowReader& rows) -> absl::Status {
      ASSIGN_OR_RETURN(const std::optional<Row> row, ParseRow(rows));
      if (!row || !row->task) return absl::OkStatus();
      const auto it = tasks.find(row->job);
      if (it == tasks.end()) return absl::OkStatus();
      it->second.push_back(*row->task);
      it->second.back().order = order;
      return absl::OkStatus();
    }));
    auto build = [&](const ArrivalIndexEntry& e) -> absl::StatusOr<json> {
      std::vector<TaskRecord>& job_tasks = tasks[e.key];
      if (job_tasks.size() != e.rows) {
        return absl::InvalidArgumentError(fmt::format("{}: job {} changed between two reads of the file",
                                                      paths.front(), e.key));
      }
      json stages = BuildStages(e.key, job_tasks, report);
      std::vector<TaskRecord>().swap(job_tasks);
      return json{{"name", std::to_string(e.key)}, {"stages", std::move(stages)}};
    };
    std::vector<json> built(batch.size());
    if (!instance_files.empty()) {
      for (size_t k = 0; k < batch.size(); ++k) {
        ASSIGN_OR_RETURN(built[k], build(batch[k]));
      }
      RETURN_IF_ERROR(ReadBatchInstances(instance_files, kInstances, built, kept, first, report));
    }
    first = false;
    for (size_t k = 0; k < batch.size(); ++k) {
      if (instance_files.empty()) {  // built one job at a time
        ASSIGN_OR_RETURN(built[k], build(batch[k]));
      }
      RETURN_IF_ERROR(out.Job(std::move(built[k]), static_cast<double>(batch[k].arrival)));
      out.NoArrivalBefore(static_cast<double>(batch[k].arrival));
    }
    return absl::OkStatus();
  });
}

}  // namespace weft
