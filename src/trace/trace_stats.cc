#include "trace/trace_stats.h"

#include <algorithm>

#include "core/status.h"
#include "fmt/format.h"

namespace weft {

void Quantiles::Add(double value, uint64_t weight) {
  if (weight == 1) {
    ones_.push_back(value);
  } else if (weight > 1) {
    weighted_.push_back({value, weight});
  }
  total_ += weight;
}

std::string Quantiles::Line() {
  if (ones_.empty() && weighted_.empty()) return "none";
  std::sort(ones_.begin(), ones_.end());
  std::sort(weighted_.begin(), weighted_.end());
  const double max = std::max(ones_.empty() ? weighted_.back().first : ones_.back(),
                              weighted_.empty() ? ones_.back() : weighted_.back().first);
  return fmt::format("p50 {:.6g}, p90 {:.6g}, p99 {:.6g}, max {:.6g}", Quantile(0.5), Quantile(0.9), Quantile(0.99),
                     max);
}

double Quantiles::Quantile(double q) const {
  // The value at rank q (total - 1), walking both sorted lists in step.
  const auto rank = static_cast<uint64_t>(q * static_cast<double>(total_ - 1));
  uint64_t seen = 0;
  size_t a = 0, b = 0;
  double value = 0;
  while (a < ones_.size() || b < weighted_.size()) {
    if (b == weighted_.size() || (a < ones_.size() && ones_[a] < weighted_[b].first)) {
      value = ones_[a++];
      seen += 1;
    } else {
      value = weighted_[b].first;
      seen += weighted_[b++].second;
    }
    if (seen > rank) return value;
  }
  return value;
}

void WorkloadStats::Add(const Job& job) {
  first_ = jobs_ == 0 ? job.arrival_us : std::min(first_, job.arrival_us);
  last_ = jobs_ == 0 ? job.arrival_us : std::max(last_, job.arrival_us);
  ++jobs_;
  tasks_ += job.num_tasks;
  stages_ += job.stages.size();
  tasks_per_job_.Add(static_cast<double>(job.num_tasks));
  stages_per_job_.Add(static_cast<double>(job.stages.size()));
  std::vector<uint32_t> level(job.stages.size(), 1);
  uint32_t deepest = 0;
  for (uint32_t s : job.topo_order) {
    for (const Edge& p : job.stages[s].parents) level[s] = std::max(level[s], level[p.stage] + 1);
    deepest = std::max(deepest, level[s]);
  }
  std::vector<uint32_t> at_level(deepest + 1, 0);
  for (uint32_t l : level) ++at_level[l];
  depth_.Add(deepest);
  width_.Add(*std::max_element(at_level.begin(), at_level.end()));
  for (const Stage& stage : job.stages) {
    if (stage.durations_us.empty()) {
      duration_.Add(UsToSeconds(stage.duration_us), stage.num_tasks);
    } else {
      for (TimeUs d : stage.durations_us) duration_.Add(UsToSeconds(d));
    }
    cpu_.Add(stage.demand.units(kCpu), stage.num_tasks);
    mem_.Add(stage.demand.units(kMem), stage.num_tasks);
  }
}

std::vector<std::string> WorkloadStats::Lines(size_t machines) {
  std::vector<std::string> lines;
  const double span = UsToSeconds(last_ - first_);
  lines.push_back(fmt::format("workload: {} jobs, {} stages, {} tasks on {} machines", jobs_, stages_, tasks_, machines));
  lines.push_back(fmt::format("arrivals: first {:.6g} s, last {:.6g} s, span {:.6g} s, {:.6g} jobs/s",
                              UsToSeconds(first_), UsToSeconds(last_), span,
                              span > 0 ? static_cast<double>(jobs_ - 1) / span : 0.0));
  lines.push_back("task duration (s): " + duration_.Line());
  lines.push_back("task cpu demand: " + cpu_.Line());
  lines.push_back("task mem demand: " + mem_.Line());
  lines.push_back("tasks per job: " + tasks_per_job_.Line());
  lines.push_back("stages per job: " + stages_per_job_.Line());
  lines.push_back("DAG depth (stages on the longest chain): " + depth_.Line());
  lines.push_back("DAG width (most stages at one depth): " + width_.Line());
  return lines;
}

absl::Status TraceStatsSink::Cluster(const nlohmann::json& cluster) { return builder_.SetCluster(cluster); }

absl::Status TraceStatsSink::Job(const nlohmann::json& job) {
  absl::StatusOr<weft::Job> built = builder_.BuildJob(job);
  // The emitter and readers checked everything the builder checks, so a
  // refusal here is a bug in a reader, not bad input (as WorkloadBuilderSink).
  if (!built.ok()) {
    return absl::InternalError(fmt::format("trace reader built an invalid job: {}", StatusMessage(built.status())));
  }
  stats_.Add(*built);
  return absl::OkStatus();
}

}  // namespace weft
