#include "trace/task_groups.h"

#include <algorithm>
#include <functional>

#include "fmt/format.h"

namespace weft {

namespace {

// OneStage: the job's tasks, in index order, as one stage with per-task
// demands (and usages where some task was measured).
nlohmann::json OneStage(std::vector<TraceTask>& tasks) {
  using nlohmann::json;
  std::sort(tasks.begin(), tasks.end(), [](const TraceTask& a, const TraceTask& b) { return a.index < b.index; });
  json durations = json::array(), demands = json::array(), usages = json::array();
  int64_t total_us = 0;
  bool measured = false;
  double peak_cpu = 0, peak_mem = 0;  // the stage's demand covers every task's
  for (const TraceTask& t : tasks) {
    peak_cpu = std::max(peak_cpu, t.cpu);
    peak_mem = std::max(peak_mem, t.mem);
    durations.push_back(Seconds(t.duration_us));
    total_us += t.duration_us;
    demands.push_back({{"cpu", t.cpu}, {"mem", t.mem}});
    usages.push_back(t.has_usage ? json{{"cpu", std::min(t.cpu_used, t.cpu)}, {"mem", std::min(t.mem_used, t.mem)}}
                                 : json{{"cpu", t.cpu}, {"mem", t.mem}});
    measured = measured || t.has_usage;
  }
  const auto n = static_cast<int64_t>(tasks.size());
  json stage = {{"name", "s0"},
                {"tasks", n},
                {"duration", Seconds(std::max<int64_t>(1, total_us / n))},
                {"durations", std::move(durations)},
                {"demand", {{"cpu", peak_cpu}, {"mem", peak_mem}}},
                {"demands", std::move(demands)}};
  if (measured) stage["usages"] = std::move(usages);
  return json::array({std::move(stage)});
}

}  // namespace

nlohmann::json BagStages(std::vector<TraceTask>& tasks, bool stage_per_job, TraceReport& report) {
  using nlohmann::json;
  const bool alike = std::all_of(tasks.begin(), tasks.end(), [&](const TraceTask& t) {
    return t.cpu == tasks.front().cpu && t.mem == tasks.front().mem;
  });
  if (stage_per_job && !alike) {
    report.Note(kNoteStagePerJob);
    return OneStage(tasks);
  }
  std::sort(tasks.begin(), tasks.end(), [](const TraceTask& a, const TraceTask& b) {
    if (a.cpu != b.cpu) return a.cpu > b.cpu;
    if (a.mem != b.mem) return a.mem > b.mem;
    return a.index < b.index;
  });
  json stages = json::array();
  for (size_t begin = 0; begin < tasks.size();) {
    size_t end = begin;
    while (end < tasks.size() && tasks[end].cpu == tasks[begin].cpu && tasks[end].mem == tasks[begin].mem) ++end;
    json durations = json::array();
    int64_t total_us = 0;
    bool same = true;
    double cpu_used = 0, mem_used = 0;
    uint64_t measured = 0;
    for (size_t t = begin; t < end; ++t) {
      durations.push_back(Seconds(tasks[t].duration_us));
      total_us += tasks[t].duration_us;
      same = same && tasks[t].duration_us == tasks[begin].duration_us;
      if (tasks[t].has_usage) {
        cpu_used += tasks[t].cpu_used;
        mem_used += tasks[t].mem_used;
        ++measured;
      }
    }
    const auto n = static_cast<int64_t>(end - begin);
    json stage = {{"name", fmt::format("s{}", stages.size())},
                  {"tasks", n},
                  {"duration", Seconds(std::max<int64_t>(1, total_us / n))},
                  {"demand", {{"cpu", tasks[begin].cpu}, {"mem", tasks[begin].mem}}}};
    if (!same) stage["durations"] = std::move(durations);
    if (measured > 0) {
      const double m = static_cast<double>(measured);
      stage["usage"] = {{"cpu", std::min(cpu_used / m, tasks[begin].cpu)},
                        {"mem", std::min(mem_used / m, tasks[begin].mem)}};
    }
    stages.push_back(std::move(stage));
    begin = end;
  }
  if (stages.size() > 1) report.Note(kNoteSplitByDemand);
  return stages;
}

nlohmann::json GroupsByCapacity(const std::map<int64_t, std::pair<double, double>>& machines) {
  std::map<std::pair<double, double>, uint64_t, std::greater<>> groups;
  for (const auto& [id, capacity] : machines) ++groups[capacity];
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [capacity, count] : groups) {
    out.push_back(MachineGroup(fmt::format("g{}-", out.size()), count, {{"cpu", capacity.first}, {"mem", capacity.second}}));
  }
  return out;
}

}  // namespace weft
