#include "trace/trace_stats.h"

#include <algorithm>

#include "fmt/format.h"

namespace weft {
namespace {

// Weighted values: each value counts `weight` times (a stage's tasks).
class Distribution {
 public:
  void Add(double value, uint64_t weight = 1) {
    if (weight > 0) values_.push_back({value, weight});
    total_ += weight;
  }
  // Line: "p50 a, p90 b, p99 c, max d" (or "none").
  std::string Line() {
    if (values_.empty()) return "none";
    std::sort(values_.begin(), values_.end());
    return fmt::format("p50 {:.6g}, p90 {:.6g}, p99 {:.6g}, max {:.6g}", Quantile(0.5), Quantile(0.9), Quantile(0.99),
                       values_.back().first);
  }

 private:
  double Quantile(double q) const {
    const auto rank = static_cast<uint64_t>(q * static_cast<double>(total_ - 1));
    uint64_t seen = 0;
    for (const auto& [value, weight] : values_) {
      seen += weight;
      if (seen > rank) return value;
    }
    return values_.back().first;
  }
  std::vector<std::pair<double, uint64_t>> values_;
  uint64_t total_ = 0;
};

}  // namespace

std::vector<std::string> DescribeWorkload(const Workload& w) {
  std::vector<std::string> lines;
  TimeUs first = 0, last = 0;
  Distribution duration, cpu, mem, tasks_per_job, stages_per_job, depth, width;
  uint64_t tasks = 0, stages = 0;
  for (size_t j = 0; j < w.jobs.size(); ++j) {
    const Job& job = w.jobs[j];
    first = j == 0 ? job.arrival_us : std::min(first, job.arrival_us);
    last = j == 0 ? job.arrival_us : std::max(last, job.arrival_us);
    tasks += job.num_tasks;
    stages += job.stages.size();
    tasks_per_job.Add(static_cast<double>(job.num_tasks));
    stages_per_job.Add(static_cast<double>(job.stages.size()));
    std::vector<uint32_t> level(job.stages.size(), 1);
    uint32_t deepest = 0;
    for (uint32_t s : job.topo_order) {
      for (const Edge& p : job.stages[s].parents) level[s] = std::max(level[s], level[p.stage] + 1);
      deepest = std::max(deepest, level[s]);
    }
    std::vector<uint32_t> at_level(deepest + 1, 0);
    for (uint32_t l : level) ++at_level[l];
    depth.Add(deepest);
    width.Add(*std::max_element(at_level.begin(), at_level.end()));
    for (const Stage& stage : job.stages) {
      if (stage.durations_us.empty()) {
        duration.Add(UsToSeconds(stage.duration_us), stage.num_tasks);
      } else {
        for (TimeUs d : stage.durations_us) duration.Add(UsToSeconds(d));
      }
      cpu.Add(stage.demand.units(kCpu), stage.num_tasks);
      mem.Add(stage.demand.units(kMem), stage.num_tasks);
    }
  }
  const double span = UsToSeconds(last - first);
  lines.push_back(fmt::format("workload: {} jobs, {} stages, {} tasks on {} machines", w.jobs.size(), stages, tasks,
                              w.cluster.size()));
  lines.push_back(fmt::format("arrivals: first {:.6g} s, last {:.6g} s, span {:.6g} s, {:.6g} jobs/s",
                              UsToSeconds(first), UsToSeconds(last), span,
                              span > 0 ? static_cast<double>(w.jobs.size() - 1) / span : 0.0));
  lines.push_back("task duration (s): " + duration.Line());
  lines.push_back("task cpu demand: " + cpu.Line());
  lines.push_back("task mem demand: " + mem.Line());
  lines.push_back("tasks per job: " + tasks_per_job.Line());
  lines.push_back("stages per job: " + stages_per_job.Line());
  lines.push_back("DAG depth (stages on the longest chain): " + depth.Line());
  lines.push_back("DAG width (most stages at one depth): " + width.Line());
  return lines;
}

}  // namespace weft
