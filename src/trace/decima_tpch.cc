#include "trace/decima_tpch.h"

#include <cmath>
#include <map>

#include "core/random.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/dag_job.h"
#include "trace/row_reader.h"
#include "trace/stage_table.h"
#include "trace/task_groups.h"
#include "trace/trace_files.h"

namespace weft {
namespace {

using nlohmann::json;

const std::vector<std::string_view> kStageColumns = {"input_size", "query",       "stage",
                                                     "num_tasks",  "children",    "mean_task_ms",
                                                     "n_duration_samples", "executor_counts_profiled"};
const std::vector<std::string_view> kDurationColumns = {"input_size", "query", "stage",
                                                        "num_executors", "wave", "duration_ms"};
constexpr std::string_view kNoteMean = "stages with no duration sample, run at their mean";

struct StageInfo {
  std::string id;
  int64_t tasks = 0;
  double mean_ms = NAN;
  std::vector<std::string> children;
  json durations;  // null until drawn
};

struct JobInfo {
  std::string name;
  uint64_t order = 0;
  std::vector<StageInfo> stages;
  size_t drawn = 0;
  bool emitted = false;
};

std::string JobName(const std::string& size, const std::string& query) { return fmt::format("q{}-{}", query, size); }

absl::Status ReadStages(const std::string& file, std::vector<JobInfo>& jobs, std::map<std::string, size_t>& by_name,
                        TraceReport& report) {
  ASSIGN_OR_RETURN(auto rows, RowReader::Open(file));
  while (true) {
    ASSIGN_OR_RETURN(const bool more, rows->Next());
    if (!more) break;
    ++report.rows;
    if (rows->row_number() == 1) {
      RETURN_IF_ERROR(ExpectHeader(*rows, kStageColumns, "decima-tpch stages"));
      continue;
    }
    RETURN_IF_ERROR(rows->ExpectColumns(kStageColumns.size(), "decima-tpch stages"));
    const std::string name = JobName(rows->field(0), rows->field(1));
    auto [it, added] = by_name.try_emplace(name, jobs.size());
    if (added) jobs.push_back(JobInfo{name, jobs.size(), {}, 0, false});
    StageInfo stage;
    stage.id = rows->field(2);
    if (stage.id.empty()) return rows->ColumnError(2, "stage", "is empty");
    ASSIGN_OR_RETURN(stage.tasks, rows->Int(3, "num_tasks"));
    if (stage.tasks < 1) return rows->ColumnError(3, "num_tasks", "must be at least 1");
    ASSIGN_OR_RETURN(const std::optional<double> mean, rows->OptionalNumber(5, "mean_task_ms"));
    if (mean) stage.mean_ms = *mean;
    stage.children = SplitIds(rows->field(4));
    jobs[it->second].stages.push_back(std::move(stage));
  }
  return absl::OkStatus();
}

class Reader {
 public:
  Reader(TraceEmitter& out, std::vector<JobInfo> jobs, std::map<std::string, size_t> by_name)
      : out_(out), jobs_(std::move(jobs)), by_name_(std::move(by_name)) {}

  absl::Status ReadDurations(const std::string& file) {
    ASSIGN_OR_RETURN(auto rows, RowReader::Open(file));
    while (true) {
      ASSIGN_OR_RETURN(const bool more, rows->Next());
      if (!more) break;
      ++out_.report().rows;
      if (rows->row_number() == 1) {
        RETURN_IF_ERROR(ExpectHeader(*rows, kDurationColumns, "decima-tpch task durations"));
        continue;
      }
      RETURN_IF_ERROR(rows->ExpectColumns(kDurationColumns.size(), "decima-tpch task durations"));
      ASSIGN_OR_RETURN(const double ms, rows->Number(5, "duration_ms"));
      if (ms < 0) return rows->ColumnError(5, "duration_ms", "is negative");
      const std::string key = fmt::format("{},{},{}", rows->field(0), rows->field(1), rows->field(2));
      if (key != key_) {
        RETURN_IF_ERROR(Draw());
        key_ = key;
        job_ = Find(rows->field(0), rows->field(1), rows->field(2), stage_);
      }
      if (job_ == nullptr) {
        out_.report().Skip("duration samples of no stage in the stages file", 1, key);
        continue;
      }
      samples_.push_back(std::max<int64_t>(1, std::llround(ms * 1000)));
    }
    return Draw();
  }

  // Finish passes on the jobs not yet complete, their undrawn stages at the mean.
  absl::Status Finish() {
    for (JobInfo& job : jobs_) {
      if (!job.emitted) RETURN_IF_ERROR(Emit(job));
    }
    return absl::OkStatus();
  }

 private:
  JobInfo* Find(const std::string& size, const std::string& query, const std::string& stage, size_t& index) {
    const auto it = by_name_.find(JobName(size, query));
    if (it == by_name_.end()) return nullptr;
    JobInfo& job = jobs_[it->second];
    for (index = 0; index < job.stages.size(); ++index) {
      if (job.stages[index].id == stage) return job.emitted || !job.stages[index].durations.is_null() ? nullptr : &job;
    }
    return nullptr;
  }

  // Draw gives the current stage its tasks' durations from the samples.
  absl::Status Draw() {
    if (job_ == nullptr || samples_.empty()) return absl::OkStatus();
    StageInfo& stage = job_->stages[stage_];
    Rng rng = Rng(out_.options().seed).Fork(job_->order * 4096 + stage_);
    stage.durations = json::array();
    for (int64_t t = 0; t < stage.tasks; ++t) stage.durations.push_back(Seconds(samples_[rng.UniformInt(samples_.size())]));
    samples_.clear();
    JobInfo* job = job_;
    job_ = nullptr;
    if (++job->drawn == job->stages.size()) return Emit(*job);
    return absl::OkStatus();
  }

  absl::Status Emit(JobInfo& job) {
    job.emitted = true;
    std::vector<DagStage> stages;
    for (StageInfo& s : job.stages) {
      json stage = {{"tasks", s.tasks}, {"demand", {{"cpu", 1}}}};
      if (s.durations.is_null()) {
        if (std::isnan(s.mean_ms)) {
          out_.report().Skip("jobs with a stage of neither samples nor mean", 1, job.name);
          return absl::OkStatus();
        }
        out_.report().Note(kNoteMean);
        stage["duration"] = Seconds(std::max<int64_t>(1, std::llround(s.mean_ms * 1000)));
      } else {
        int64_t total = 0;
        for (const json& d : s.durations) total += std::llround(d.get<double>() * 1e6);
        stage["duration"] = Seconds(std::max<int64_t>(1, total / s.tasks));
        stage["durations"] = std::move(s.durations);
      }
      stages.push_back(DagStage{s.id, s.children, std::move(stage)});
    }
    job.stages.clear();
    return EmitDagJob(out_, {{"name", job.name}}, stages, 0);
  }

  TraceEmitter& out_;
  std::vector<JobInfo> jobs_;
  std::map<std::string, size_t> by_name_;
  std::string key_;
  JobInfo* job_ = nullptr;
  size_t stage_ = 0;
  std::vector<int64_t> samples_;
};

}  // namespace

absl::Status ReadDecimaTpch(const std::vector<std::string>& paths, TraceEmitter& out) {
  ASSIGN_OR_RETURN(auto tables, TablesOf(paths, {"task_durations", "stages"}, "decima-tpch"));
  if (tables["stages"].size() != 1) {
    return absl::InvalidArgumentError(fmt::format("decima-tpch: need exactly one stages file (decima_tpch_stages.csv) "
                                                  "under {}, found {}", paths.front(), tables["stages"].size()));
  }
  RETURN_IF_ERROR(out.Cluster(AnalyticsCluster()));
  out.NoArrivalBefore(0);  // every job arrives at 0: a replay may take each as it is read
  std::vector<JobInfo> jobs;
  std::map<std::string, size_t> by_name;
  RETURN_IF_ERROR(ReadStages(tables["stages"].front(), jobs, by_name, out.report()));
  Reader reader(out, std::move(jobs), std::move(by_name));
  for (const std::string& file : tables["task_durations"]) RETURN_IF_ERROR(reader.ReadDurations(file));
  return reader.Finish();
}

}  // namespace weft
