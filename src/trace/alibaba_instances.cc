#include "trace/alibaba_instances.h"

#include <algorithm>
#include <map>

#include "core/status.h"
#include "fmt/format.h"

namespace weft {
namespace {

using nlohmann::json;

// What batch_instance says of one stage (task) of a kept job.
struct Instances {
  json* stage = nullptr;  // in the job being passed on
  std::vector<int64_t> seconds;
  double cpu_sum = 0, mem_sum = 0;
  uint64_t measured = 0;
};

// Refine writes what the rows say into the stage.
void Refine(const Instances& s, TraceReport& report) {
  if (s.seconds.empty()) return;
  json& stage = *s.stage;
  int64_t total = 0;
  for (int64_t v : s.seconds) total += v;
  const double mean = static_cast<double>(total) / static_cast<double>(s.seconds.size());
  if (s.seconds.size() == stage["tasks"].get<uint64_t>()) {
    stage["durations"] = s.seconds;
    stage["duration"] = mean;
  } else {
    report.Note(kNoteInstanceMean);
    stage["duration"] = mean;
  }
  if (s.measured > 0) {
    const double n = static_cast<double>(s.measured);
    const json& demand = stage["demand"];
    stage["usage"] = {{"cpu", std::min(s.cpu_sum / n, demand["cpu"].get<double>())},
                      {"mem", std::min(s.mem_sum / n, demand["mem"].get<double>())}};
  }
}

}  // namespace

absl::Status ReadBatchInstances(const std::vector<std::string>& files, const BatchInstanceLayout& layout,
                                std::span<json> jobs, const absl::flat_hash_set<std::string>& kept, bool first,
                                TraceReport& report) {
  std::map<std::pair<std::string, std::string>, Instances> stages;
  absl::flat_hash_set<std::string> batch;
  for (json& job : jobs) {
    batch.insert(job["name"].get<std::string>());
    for (json& stage : job["stages"]) {
      stages[{job["name"].get<std::string>(), stage["name"].get<std::string>()}].stage = &stage;
    }
  }
  uint64_t again = 0;
  RETURN_IF_ERROR(ForEachRow(files, ',', first ? report.rows : again, [&](const RowReader& rows) -> absl::Status {
    if (layout.refuse_header) RETURN_IF_ERROR(rows.RefuseHeader(layout.table));
    RETURN_IF_ERROR(rows.ExpectColumns(layout.columns, layout.table));
    ASSIGN_OR_RETURN(const auto key, layout.stage(rows));
    if (!key) {
      if (first) report.Skip(kSkipInstanceNoIds, 1);
      return absl::OkStatus();
    }
    const auto it = stages.find(*key);
    if (it == stages.end()) {
      if (batch.contains(key->first) || (first && !kept.contains(key->first))) report.Skip(kSkipInstanceNoJob, 1);
      return absl::OkStatus();
    }
    if (rows.field(layout.status) != "Terminated") {
      report.Skip(kSkipInstanceNotTerminated, 1);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(std::optional<int64_t> start, rows.OptionalInt(layout.start, layout.start_name));
    ASSIGN_OR_RETURN(std::optional<int64_t> end, rows.OptionalInt(layout.end, layout.end_name));
    ASSIGN_OR_RETURN(const std::optional<double> cpu, rows.OptionalNumber(layout.cpu_avg, layout.cpu_avg_name));
    ASSIGN_OR_RETURN(const std::optional<double> mem, rows.OptionalNumber(layout.mem_avg, layout.mem_avg_name));
    if (layout.zero_time_unknown) {
      if (start == 0) start.reset();
      if (end == 0) end.reset();
    }
    if (!start || !end || *end < *start) {
      report.Skip(kSkipInstanceNoSpan, 1);
      return absl::OkStatus();
    }
    Instances& s = it->second;
    s.seconds.push_back(std::max<int64_t>(1, *end - *start));  // 0 s means under a second
    if (cpu && mem && *cpu >= 0 && *mem >= 0 && *mem <= layout.mem_max) {
      s.cpu_sum += *cpu / layout.cpu_per_core;
      s.mem_sum += *mem;
      ++s.measured;
    }
    return absl::OkStatus();
  }));
  for (const auto& [key, s] : stages) Refine(s, report);
  return absl::OkStatus();
}

}  // namespace weft
