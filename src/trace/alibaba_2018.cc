#include "trace/alibaba_2018.h"

#include <algorithm>
#include <map>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/alibaba_reader.h"
#include "trace/row_reader.h"

namespace weft {
namespace {

using nlohmann::json;

constexpr std::string_view kInstanceTable = "alibaba-2018 batch_instance";
constexpr std::string_view kNoteMean =
    "stages whose Terminated batch_instance rows differ in number from instance_num, run at their mean";

// What batch_instance says of one stage (task) of a kept job.
struct Instances {
  json* stage = nullptr;  // in the converted document
  std::vector<int64_t> seconds;
  double cpu_sum = 0, mem_sum = 0;
  uint64_t measured = 0;
};

// ReadInstances streams batch_instance rows into the stages of `doc`'s jobs.
absl::Status ReadInstances(const std::vector<std::string>& files, json& doc, TraceReport& report) {
  std::map<std::pair<std::string, std::string>, Instances> stages;
  for (json& job : doc["jobs"]) {
    for (json& stage : job["stages"]) {
      stages[{job["name"].get<std::string>(), stage["name"].get<std::string>()}].stage = &stage;
    }
  }
  RETURN_IF_ERROR(ForEachRow(files, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    // instance_name,task_name,job_name,task_type,status,start_time,end_time,machine_id,seq_no,total_seq_no,
    // cpu_avg,cpu_max,mem_avg,mem_max
    RETURN_IF_ERROR(rows.ExpectColumns(14, kInstanceTable));
    const auto it = stages.find({rows.field(2), rows.field(1)});
    if (it == stages.end()) {
      report.Skip("batch_instance rows of no kept job", 1);
      return absl::OkStatus();
    }
    if (rows.field(4) != "Terminated") {
      report.Skip("batch_instance rows not Terminated", 1);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(const std::optional<int64_t> start, rows.OptionalInt(5, "start_time"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> end, rows.OptionalInt(6, "end_time"));
    ASSIGN_OR_RETURN(const std::optional<double> cpu, rows.OptionalNumber(10, "cpu_avg"));
    ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(12, "mem_avg"));
    if (!start || !end || *end < *start) {
      report.Skip("batch_instance rows without a start before their end", 1);
      return absl::OkStatus();
    }
    Instances& s = it->second;
    s.seconds.push_back(std::max<int64_t>(1, *end - *start));  // 0 s means under a second
    // The trace marks invalid measurements -1 or 101.
    if (cpu && mem && *cpu >= 0 && *mem >= 0 && *mem <= 100) {
      s.cpu_sum += *cpu / 100;
      s.mem_sum += *mem;
      ++s.measured;
    }
    return absl::OkStatus();
  }));
  for (auto& [key, s] : stages) {
    if (s.seconds.empty()) continue;
    json& stage = *s.stage;
    int64_t total = 0;
    for (int64_t v : s.seconds) total += v;
    const double mean = static_cast<double>(total) / static_cast<double>(s.seconds.size());
    if (s.seconds.size() == stage["tasks"].get<uint64_t>()) {
      stage["durations"] = s.seconds;
      stage["duration"] = mean;
    } else {
      report.Note(kNoteMean);
      stage["duration"] = mean;
    }
    if (s.measured > 0) {
      const double n = static_cast<double>(s.measured);
      const json& demand = stage["demand"];
      stage["usage"] = {{"cpu", std::min(s.cpu_sum / n, demand["cpu"].get<double>())},
                        {"mem", std::min(s.mem_sum / n, demand["mem"].get<double>())}};
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadAlibaba2018(const std::vector<std::string>& paths, TraceEmitter& out) {
  // Files named batch_instance are instances; any other file is the batch_task table.
  std::vector<std::string> task_files, instance_files;
  for (const std::string& path : paths) {
    (path.find("batch_instance") != std::string::npos ? instance_files : task_files).push_back(path);
  }
  if (task_files.size() != 1) {
    return absl::InvalidArgumentError(fmt::format(
        "alibaba-2018: give one batch_task file (and optionally batch_instance files); {} given", task_files.size()));
  }
  AlibabaOptions options;
  options.machines = 4034;
  ASSIGN_OR_RETURN(AlibabaConversion converted, ConvertAlibabaFile(task_files.front(), options));
  const AlibabaReport& r = converted.report;
  TraceReport& report = out.report();
  report.rows += r.rows;
  const std::array<std::string_view, AlibabaReport::kReasons> why = {
      "jobs with a task not Terminated",          "jobs with a malformed task name",
      "jobs with a missing or invalid number",    "jobs with two tasks of one number",
      "jobs with a parent that is no task of the job", "jobs with a dependency cycle",
      "jobs with a task larger than a machine"};
  for (int i = 0; i < AlibabaReport::kReasons; ++i) report.Skip(why[i], r.skipped[i], r.example[i]);
  report.Skip("jobs too small (--min-tasks, --min-stages)", r.too_small);
  converted.workload = {};  // the document is what is passed on
  nlohmann::json& doc = converted.document;
  if (!instance_files.empty()) RETURN_IF_ERROR(ReadInstances(instance_files, doc, report));
  RETURN_IF_ERROR(out.Cluster(std::move(doc["cluster"]["machines"])));
  for (nlohmann::json& job : doc["jobs"]) {
    const double arrival = job["arrival"].get<double>();
    job.erase("arrival");
    RETURN_IF_ERROR(out.Job(std::move(job), arrival));
    out.NoArrivalBefore(arrival);  // the converted jobs are in arrival order
  }
  return absl::OkStatus();
}

}  // namespace weft
