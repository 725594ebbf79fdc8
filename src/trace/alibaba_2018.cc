#include "trace/alibaba_2018.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/alibaba_instances.h"
#include "trace/alibaba_reader.h"
#include "trace/arrival_batches.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using nlohmann::json;

// batch_instance, native (14 columns):
//   instance_name,task_name,job_name,task_type,status,start_time,end_time,machine_id,seq_no,total_seq_no,
//   cpu_avg,cpu_max,mem_avg,mem_max
// cpu_avg in hundredths of a core, mem_avg in percent of a machine (as
// plan_mem), both marked invalid by -1 or 101. A header row is not refused:
// it names no kept job's task, and is counted as such (as before the rules
// were shared with alibaba-2017).
const BatchInstanceLayout kInstances{
    .table = "alibaba-2018 batch_instance",
    .columns = 14,
    .status = 4, .start = 5, .end = 6, .cpu_avg = 10, .mem_avg = 12,
    .cpu_per_core = 100,
    .mem_max = 100,
    .stage = [](const RowReader& row) -> absl::StatusOr<std::optional<std::pair<std::string, std::string>>> {
      return std::optional<std::pair<std::string, std::string>>({row.field(2), row.field(1)});
    },
};

// PassReport adds the batch_task reader's counts to the trace's report.
void PassReport(const AlibabaReport& r, TraceReport& report) {
  report.rows += r.rows;
  const std::array<std::string_view, AlibabaReport::kReasons> why = {
      "jobs with a task not Terminated",          "jobs with a malformed task name",
      "jobs with a missing or invalid number",    "jobs with two tasks of one number",
      "jobs with a parent that is no task of the job", "jobs with a dependency cycle",
      "jobs with a task larger than a machine"};
  for (int i = 0; i < AlibabaReport::kReasons; ++i) report.Skip(why[i], r.skipped[i], r.example[i]);
  report.Skip("jobs too small (--min-tasks, --min-stages)", r.too_small);
}

absl::StatusOr<std::ifstream> OpenTaskFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(fmt::format("{}: is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(fmt::format("{}: cannot open", path));
  return in;
}

// A usable job of the first pass: its name, trace arrival and rows.
struct IndexedJob {
  std::string name;
  double arrival = 0;
  uint64_t rows = 0;
};

// IndexJobs is the first pass over batch_task: each job's rows, which the
// ERDOS files hold together, are checked and built one job at a time, the
// skips counted and each usable job indexed. nullopt when a job's rows are
// apart (the native layout may be so): the caller then reads the file whole.
absl::StatusOr<std::optional<std::vector<IndexedJob>>> IndexJobs(const std::string& path,
                                                                const AlibabaOptions& options, AlibabaReport& r) {
  ASSIGN_OR_RETURN(std::ifstream in, OpenTaskFile(path));
  AlibabaTaskRowStream stream(in, path);
  std::vector<IndexedJob> index;
  absl::flat_hash_set<std::string> seen;
  std::vector<AlibabaTaskRow> group;
  auto close_group = [&] {
    if (group.empty()) return;
    ++r.jobs;
    std::vector<const AlibabaTaskRow*> rows;
    for (const AlibabaTaskRow& row : group) rows.push_back(&row);
    std::variant<AlibabaJobDraft, AlibabaJobSkip> built = BuildAlibabaJob(rows, options);
    if (const AlibabaJobSkip* skip = std::get_if<AlibabaJobSkip>(&built)) {
      r.Count(*skip, group.front().job);
    } else {
      ++r.usable;
      const AlibabaJobDraft& job = std::get<AlibabaJobDraft>(built);
      if (job.tasks < options.min_tasks || job.num_stages < options.min_stages) {
        ++r.too_small;
      } else {
        index.push_back({job.name, job.arrival_s, group.size()});
      }
    }
    group.clear();
  };
  while (true) {
    ASSIGN_OR_RETURN(std::optional<AlibabaTaskRow> row, stream.Next());
    if (!row) break;
    ++r.rows;
    if (!group.empty() && row->job != group.front().job) close_group();
    if (group.empty() && !seen.insert(row->job).second) return std::optional<std::vector<IndexedJob>>();
    group.push_back(std::move(*row));
  }
  close_group();
  return std::optional<std::vector<IndexedJob>>(std::move(index));
}

// CollectRows is a further pass: the rows of each job of `batch`.
absl::StatusOr<std::vector<std::vector<AlibabaTaskRow>>> CollectRows(const std::string& path,
                                                                     std::span<const IndexedJob> batch) {
  absl::flat_hash_map<std::string_view, size_t> slot;
  for (size_t k = 0; k < batch.size(); ++k) slot.emplace(batch[k].name, k);
  std::vector<std::vector<AlibabaTaskRow>> rows(batch.size());
  ASSIGN_OR_RETURN(std::ifstream in, OpenTaskFile(path));
  AlibabaTaskRowStream stream(in, path);
  while (true) {
    ASSIGN_OR_RETURN(std::optional<AlibabaTaskRow> row, stream.Next());
    if (!row) break;
    const auto it = slot.find(row->job);
    if (it != slot.end()) rows[it->second].push_back(std::move(*row));
  }
  return rows;
}

// BuildJob builds a job of the batch from its rows (and frees them).
absl::StatusOr<json> BuildJob(const std::string& path, const IndexedJob& indexed, std::vector<AlibabaTaskRow>& rows,
                              const AlibabaOptions& options) {
  std::vector<const AlibabaTaskRow*> ptrs;
  for (const AlibabaTaskRow& row : rows) ptrs.push_back(&row);
  std::variant<AlibabaJobDraft, AlibabaJobSkip> built = BuildAlibabaJob(ptrs, options);
  if (ptrs.size() != indexed.rows || !std::holds_alternative<AlibabaJobDraft>(built)) {
    return absl::InvalidArgumentError(fmt::format("{}: job {} changed between two reads of the file", path,
                                                  indexed.name));
  }
  std::vector<AlibabaTaskRow>().swap(rows);
  AlibabaJobDraft& job = std::get<AlibabaJobDraft>(built);
  return json{{"name", std::move(job.name)}, {"stages", std::move(job.stages)}};
}

// ReadWhole is the reader for a file whose jobs' rows are apart: every row
// in memory, as `weft convert` reads it.
absl::Status ReadWhole(const std::string& path, const std::vector<std::string>& instance_files,
                       const AlibabaOptions& options, TraceEmitter& out) {
  ASSIGN_OR_RETURN(AlibabaConversion converted, ConvertAlibabaFile(path, options));
  TraceReport& report = out.report();
  PassReport(converted.report, report);
  converted.workload = {};  // the document is what is passed on
  nlohmann::json& doc = converted.document;
  std::vector<json> jobs;
  for (json& job : doc["jobs"]) jobs.push_back(std::move(job));
  if (!instance_files.empty()) RETURN_IF_ERROR(ReadBatchInstances(instance_files, kInstances, jobs, {}, true, report));
  RETURN_IF_ERROR(out.Cluster(std::move(doc["cluster"]["machines"])));
  for (json& job : jobs) {
    const double arrival = job["arrival"].get<double>();
    job.erase("arrival");
    RETURN_IF_ERROR(out.Job(std::move(job), arrival));
    out.NoArrivalBefore(arrival);  // the converted jobs are in arrival order
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadAlibaba2018(const std::vector<std::string>& paths, TraceEmitter& out) {
  // Files named batch_instance are instances; any other file is the batch_task table.
  std::vector<std::string> task_files, instance_files;
  for (const std::string& path : paths) {
    (IsInstanceFile(path) ? instance_files : task_files).push_back(path);
  }
  if (task_files.size() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "alibaba-2018: give one batch_task file (and optionally batch_instance files); {} given", task_files.size()));
  }
  const std::string& path = task_files.front();
  AlibabaOptions options;
  options.machines = 4034;
  AlibabaReport r;
  ASSIGN_OR_RETURN(std::optional<std::vector<IndexedJob>> index, IndexJobs(path, options, r));
  if (!index) return ReadWhole(path, instance_files, options, out);
  if (index->empty()) return absl::InvalidArgumentError(fmt::format("{}: no job to write: {}", path, r.Summary()));
  TraceReport& report = out.report();
  PassReport(r, report);
  RETURN_IF_ERROR(out.Cluster(json::array({AlibabaMachineGroup(options)})));
  // Arrivals count from the earliest job kept, and jobs are passed in
  // arrival order (ties by name), as ConvertAlibabaRows orders them.
  std::sort(index->begin(), index->end(), [](const IndexedJob& a, const IndexedJob& b) {
    return std::tie(a.arrival, a.name) < std::tie(b.arrival, b.name);
  });
  const double first_arrival = index->front().arrival;
  absl::flat_hash_set<std::string> kept;
  if (!instance_files.empty()) {
    for (const IndexedJob& job : *index) kept.insert(job.name);
  }
  bool first = true;
  const std::span<const IndexedJob> all(*index);
  return ForEachBatch(all, out.options().max_held_rows, report, [&](std::span<const IndexedJob> batch) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<std::vector<AlibabaTaskRow>> rows, CollectRows(path, batch));
    // With batch_instance, the batch's jobs are built first (their instances
    // are read once for the batch); without, each just before it is passed.
    std::vector<json> jobs(batch.size());
    if (!instance_files.empty()) {
      for (size_t k = 0; k < batch.size(); ++k) {
        ASSIGN_OR_RETURN(jobs[k], BuildJob(path, batch[k], rows[k], options));
      }
      RETURN_IF_ERROR(ReadBatchInstances(instance_files, kInstances, jobs, kept, first, report));
    }
    first = false;
    for (size_t k = 0; k < batch.size(); ++k) {
      if (instance_files.empty()) {
        ASSIGN_OR_RETURN(jobs[k], BuildJob(path, batch[k], rows[k], options));
      }
      const double arrival = batch[k].arrival - first_arrival;
      RETURN_IF_ERROR(out.Job(std::move(jobs[k]), arrival));
      out.NoArrivalBefore(arrival);
    }
    return absl::OkStatus();
  });
}

}  // namespace weft
