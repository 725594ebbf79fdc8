#include "trace/tpch_cloudlab.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/status.h"
#include "fmt/format.h"
#include "trace/dag_job.h"
#include "trace/row_reader.h"
#include "trace/stage_table.h"
#include "trace/task_groups.h"

namespace weft {
namespace {

using nlohmann::json;

const std::vector<std::string_view> kColumns = {"query",    "input_size",          "spark_max_cores", "stage_id",
                                                 "num_tasks", "avg_task_runtime_ms", "children",        "stage_name"};

class JobAssembler {
 public:
  explicit JobAssembler(TraceEmitter& out) : out_(out) {}

  absl::Status Row(const RowReader& r) {
    const std::string name = fmt::format("{}-{}-{}", r.field(0), r.field(1), r.field(2));
    if (r.field(0).empty() || r.field(1).empty() || r.field(2).empty()) {
      return r.Error("query, input_size and spark_max_cores must not be empty");
    }
    if (name != name_) {
      RETURN_IF_ERROR(Flush());
      if (!seen_.insert(name).second) {
        return r.Error(fmt::format("job {} continues here after other jobs: its rows must be together", name));
      }
      name_ = name;
    }
    ASSIGN_OR_RETURN(const int64_t tasks, r.Int(4, "num_tasks"));
    ASSIGN_OR_RETURN(const double ms, r.Number(5, "avg_task_runtime_ms"));
    if (tasks < 1) return r.ColumnError(4, "num_tasks", "must be at least 1");
    if (ms < 0) return r.ColumnError(5, "avg_task_runtime_ms", "is negative");
    int64_t us = std::llround(ms * 1000);
    if (us < 1000) {
      out_.report().Note("stages shorter than 1 ms raised to 1 ms");
      us = 1000;
    }
    stages_.push_back(DagStage{r.field(3), SplitIds(r.field(6)),
                               {{"tasks", tasks}, {"duration", Seconds(us)}, {"demand", {{"cpu", 1}}}}});
    return absl::OkStatus();
  }

  absl::Status Flush() {
    if (stages_.empty()) return absl::OkStatus();
    const std::vector<DagStage> stages = std::move(stages_);
    stages_.clear();
    return EmitDagJob(out_, {{"name", name_}}, stages, 0);
  }

 private:
  TraceEmitter& out_;
  std::string name_;
  std::vector<DagStage> stages_;
  std::set<std::string> seen_;
};

}  // namespace

absl::Status ReadTpchCloudlab(const std::vector<std::string>& paths, TraceEmitter& out) {
  RETURN_IF_ERROR(out.Cluster(AnalyticsCluster()));
  out.NoArrivalBefore(0);  // every job arrives at 0: a replay may take each as it is read
  JobAssembler jobs(out);  // across files, so a job name used twice is refused
  for (const std::string& file : paths) {
    ASSIGN_OR_RETURN(auto rows, RowReader::Open(file));
    while (true) {
      ASSIGN_OR_RETURN(const bool more, rows->Next());
      if (!more) break;
      ++out.report().rows;
      if (rows->row_number() == 1) {
        RETURN_IF_ERROR(ExpectHeader(*rows, kColumns, "tpch-cloudlab stages"));
        continue;
      }
      RETURN_IF_ERROR(rows->ExpectColumns(kColumns.size(), "tpch-cloudlab stages"));
      RETURN_IF_ERROR(jobs.Row(*rows));
    }
    RETURN_IF_ERROR(jobs.Flush());
  }
  return absl::OkStatus();
}

}  // namespace weft
