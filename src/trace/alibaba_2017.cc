#include "trace/alibaba_2017.h"

#include <algorithm>
#include <map>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/row_reader.h"
#include "trace/task_groups.h"

namespace weft {
namespace {

using nlohmann::json;

struct TaskRecord {
  int64_t task_id = 0;
  int64_t instances = 0;
  int64_t create_s = 0;
  int64_t seconds = 0;
  double cpu = 0, mem = 0;
};

constexpr std::string_view kTable = "alibaba-2017 batch_task";

absl::Status ReadFiles(const std::vector<std::string>& files, std::map<int64_t, std::vector<TaskRecord>>& jobs,
                       TraceReport& report) {
  return ForEachRow(files, ',', report.rows, [&](const RowReader& rows) -> absl::Status {
    RETURN_IF_ERROR(rows.ExpectColumns(8, kTable));
    if (rows.row_number() == 1 && !ParseFiniteNumber(rows.field(0))) return absl::OkStatus();  // the optional header
    const std::string where = fmt::format("{} row {}", rows.file(), rows.row_number());
    ASSIGN_OR_RETURN(const std::optional<int64_t> create, rows.OptionalInt(0, "task_create_time"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> end, rows.OptionalInt(1, "task_end_time"));
    ASSIGN_OR_RETURN(const int64_t job, rows.Int(2, "job_id"));
    ASSIGN_OR_RETURN(const int64_t task, rows.Int(3, "task_id"));
    ASSIGN_OR_RETURN(const std::optional<int64_t> instances, rows.OptionalInt(4, "instance_num"));
    ASSIGN_OR_RETURN(const std::optional<double> cpu, rows.OptionalNumber(6, "plan_cpu"));
    ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(7, "plan_mem"));
    if (rows.field(5) != "Terminated") {
      report.Skip("tasks not Terminated", 1, where);
    } else if (!cpu || !mem || *cpu <= 0 || *mem < 0) {
      report.Skip("tasks without a cpu or memory request", 1, where);
    } else if (!instances || *instances < 1 || !create || !end || *end < *create) {
      report.Skip("tasks without instances or with an end before their creation", 1, where);
    } else {
      jobs[job].push_back(TaskRecord{task, *instances, *create, std::max<int64_t>(1, *end - *create), *cpu / 100, *mem});
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status ReadAlibaba2017(const std::vector<std::string>& paths, TraceEmitter& out) {
  RETURN_IF_ERROR(out.Cluster(json::array({MachineGroup("m", 1300, {{"cpu", 64}, {"mem", 1}})})));
  std::map<int64_t, std::vector<TaskRecord>> jobs;
  RETURN_IF_ERROR(ReadFiles(paths, jobs, out.report()));
  for (auto& [id, tasks] : jobs) {
    std::sort(tasks.begin(), tasks.end(), [](const TaskRecord& a, const TaskRecord& b) { return a.task_id < b.task_id; });
    json stages = json::array();
    int64_t arrival = tasks.front().create_s;
    for (size_t t = 0; t < tasks.size(); ++t) {
      if (t > 0 && tasks[t].task_id == tasks[t - 1].task_id) {
        out.report().Skip("tasks listed twice (the later row)", 1, fmt::format("job {} task {}", id, tasks[t].task_id));
        continue;
      }
      stages.push_back({{"name", fmt::format("t{}", tasks[t].task_id)},
                        {"tasks", tasks[t].instances},
                        {"duration", tasks[t].seconds},
                        {"demand", {{"cpu", tasks[t].cpu}, {"mem", tasks[t].mem}}}});
      arrival = std::min(arrival, tasks[t].create_s);
    }
    if (arrival < 0) out.report().Note("jobs created before the trace start, arriving at 0");
    tasks = {};
    RETURN_IF_ERROR(out.Job({{"name", std::to_string(id)}, {"stages", std::move(stages)}},
                            static_cast<double>(std::max<int64_t>(0, arrival))));
  }
  return absl::OkStatus();
}

}  // namespace weft
