#include "trace/alibaba_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>
#include <variant>

#include "core/random.h"
#include "core/status.h"
#include "fmt/format.h"
#include "trace/alibaba_task_name.h"
#include "trace/workload_reader.h"

namespace weft {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, AlibabaReport::kReasons> kSkipWhy = {
    "a task not Terminated", "a malformed task name", "a missing or invalid number", "two tasks with one number",
    "a parent that is no task of the job", "a dependency cycle", "a demand larger than a machine"};

// InstanceSeconds: one instance's running time (header comment), or nullopt.
std::optional<double> InstanceSeconds(const AlibabaTaskRow& row) {
  double s = NAN;
  if (!IsMissing(row.avg_instance_s)) {
    s = row.avg_instance_s;
  } else if (!IsMissing(row.duration_s)) {
    s = row.duration_s;
  } else if (!IsMissing(row.start_s) && !IsMissing(row.end_s) && row.end_s >= row.start_s) {
    s = row.end_s - row.start_s;
  }
  if (IsMissing(s)) return std::nullopt;
  return std::max(1.0, std::round(s * 1000.0) / 1000.0);
}

bool ValidNumbers(const AlibabaTaskRow& row) {
  return !IsMissing(row.instances) && row.instances >= 1 && row.instances == std::floor(row.instances) &&
         row.instances <= std::numeric_limits<uint32_t>::max() && !IsMissing(row.plan_cpu) && row.plan_cpu > 0 &&
         !IsMissing(row.plan_mem) && !IsMissing(row.start_s) && InstanceSeconds(row).has_value();
}

// TopologicalOrder lists the tasks parents first, among the ready ones the
// smallest by `rank`; nullopt on a cycle.
std::optional<std::vector<size_t>> TopologicalOrder(const std::vector<std::vector<size_t>>& parents,
                                                    const std::vector<size_t>& rank) {
  const size_t n = parents.size();
  std::vector<std::vector<size_t>> children(n);
  std::vector<size_t> waiting(n, 0);
  for (size_t t = 0; t < n; ++t) {
    waiting[t] = parents[t].size();
    for (size_t p : parents[t]) children[p].push_back(t);
  }
  std::set<std::pair<size_t, size_t>> ready;  // (rank, task)
  for (size_t t = 0; t < n; ++t) {
    if (waiting[t] == 0) ready.insert({rank[t], t});
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t t = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(t);
    for (size_t c : children[t]) {
      if (--waiting[c] == 0) ready.insert({rank[c], c});
    }
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

}  // namespace

std::variant<AlibabaJobDraft, AlibabaJobSkip> BuildAlibabaJob(const std::vector<const AlibabaTaskRow*>& rows,
                                                              const AlibabaOptions& o) {
  using Skip = AlibabaJobSkip;
  std::vector<AlibabaTaskName> names;
  std::unordered_map<uint32_t, size_t> by_number;
  for (const AlibabaTaskRow* row : rows) {
    if (row->status != "Terminated") return Skip{AlibabaSkip::kNotTerminated, row->line};
  }
  for (const AlibabaTaskRow* row : rows) {
    std::optional<AlibabaTaskName> name = ParseAlibabaTaskName(row->task);
    if (!name) return Skip{AlibabaSkip::kBadName, row->line};
    names.push_back(std::move(*name));
  }
  for (const AlibabaTaskRow* row : rows) {
    if (!ValidNumbers(*row)) return Skip{AlibabaSkip::kBadValue, row->line};
  }
  for (size_t t = 0; t < rows.size(); ++t) {
    if (names[t].independent) continue;
    if (!by_number.emplace(names[t].id, t).second) return Skip{AlibabaSkip::kDuplicateTask, rows[t]->line};
  }
  std::vector<std::vector<size_t>> parents(rows.size());
  for (size_t t = 0; t < rows.size(); ++t) {
    for (uint32_t number : names[t].parents) {
      const auto it = by_number.find(number);
      if (it == by_number.end()) return Skip{AlibabaSkip::kUnknownParent, rows[t]->line};
      if (it->second == t) return Skip{AlibabaSkip::kCycle, rows[t]->line};
      if (std::find(parents[t].begin(), parents[t].end(), it->second) == parents[t].end()) {
        parents[t].push_back(it->second);
      }
    }
  }
  for (const AlibabaTaskRow* row : rows) {
    if (row->plan_cpu / 100.0 > o.machine_cpu || row->plan_mem > o.machine_mem) {
      return Skip{AlibabaSkip::kTooLarge, row->line};
    }
  }
  // Rank: DAG tasks by number, then independent ones by name.
  std::vector<size_t> by_rank(rows.size());
  for (size_t t = 0; t < rows.size(); ++t) by_rank[t] = t;
  std::sort(by_rank.begin(), by_rank.end(), [&](size_t a, size_t b) {
    if (names[a].independent != names[b].independent) return names[b].independent;
    if (names[a].id != names[b].id) return names[a].id < names[b].id;
    return rows[a]->task < rows[b]->task;
  });
  std::vector<size_t> rank(rows.size());
  for (size_t r = 0; r < by_rank.size(); ++r) rank[by_rank[r]] = r;
  std::optional<std::vector<size_t>> order = TopologicalOrder(parents, rank);
  if (!order) return Skip{AlibabaSkip::kCycle, rows.front()->line};

  AlibabaJobDraft job;
  job.name = rows.front()->job;
  job.arrival_s = rows.front()->start_s;
  job.stages = json::array();
  for (size_t t : *order) {
    const AlibabaTaskRow& row = *rows[t];
    const auto tasks = static_cast<uint64_t>(row.instances);
    json stage = {{"name", row.task},
                  {"tasks", tasks},
                  {"duration", *InstanceSeconds(row)},
                  {"demand", {{"cpu", row.plan_cpu / 100.0}, {"mem", row.plan_mem}}}};
    if (!parents[t].empty()) {
      json after = json::array();
      for (size_t p : parents[t]) after.push_back(rows[p]->task);
      stage["after"] = std::move(after);
    }
    job.stages.push_back(std::move(stage));
    job.arrival_s = std::min(job.arrival_s, row.start_s);
    job.tasks += tasks;
  }
  job.num_stages = order->size();
  return job;
}

namespace {

absl::Status CheckOptions(const AlibabaOptions& o) {
  if (o.machines < 1) return absl::InvalidArgumentError("machines must be at least 1");
  if (!(o.machine_cpu > 0) || !std::isfinite(o.machine_cpu)) {
    return absl::InvalidArgumentError("machine cpu must be a number > 0");
  }
  if (!(o.machine_mem > 0) || !std::isfinite(o.machine_mem)) {
    return absl::InvalidArgumentError("machine mem must be a number > 0");
  }
  return absl::OkStatus();
}

// Sample keeps `k` of `jobs` chosen uniformly (partial Fisher-Yates), in
// their original order.
std::vector<AlibabaJobDraft> Sample(std::vector<AlibabaJobDraft> jobs, uint64_t k, uint64_t seed) {
  if (k == 0 || k >= jobs.size()) return jobs;
  std::vector<size_t> index(jobs.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  Rng rng(seed);
  for (size_t i = 0; i < k; ++i) std::swap(index[i], index[i + rng.UniformInt(index.size() - i)]);
  index.resize(k);
  std::sort(index.begin(), index.end());
  std::vector<AlibabaJobDraft> kept;
  kept.reserve(k);
  for (size_t i : index) kept.push_back(std::move(jobs[i]));
  return kept;
}

}  // namespace

nlohmann::json AlibabaMachineGroup(const AlibabaOptions& options) {
  json group = {{"name", "m"}, {"count", options.machines}, {"rack_size", options.machines}};
  group["capacity"] = {{"cpu", options.machine_cpu}, {"mem", options.machine_mem}};
  return group;
}

void AlibabaReport::Count(const AlibabaJobSkip& skip, std::string_view job) {
  const int r = static_cast<int>(skip.why);
  if (skipped[r]++ == 0) example[r] = fmt::format("{} (line {})", job, skip.line);
}

uint64_t AlibabaReport::TotalSkipped() const {
  uint64_t total = 0;
  for (uint64_t n : skipped) total += n;
  return total;
}

std::string AlibabaReport::Summary() const {
  std::string why;
  for (int r = 0; r < kReasons; ++r) {
    if (skipped[r] == 0) continue;
    why += fmt::format("{}{} with {}, e.g. {}", why.empty() ? "" : "; ", skipped[r], kSkipWhy[r], example[r]);
  }
  return fmt::format("{} rows, {} jobs: {} skipped{}, {} usable, {} too small, {} written", rows, jobs,
                     TotalSkipped(), why.empty() ? "" : " (" + why + ")", usable, too_small, written);
}

absl::StatusOr<AlibabaConversion> ConvertAlibabaRows(const std::vector<AlibabaTaskRow>& rows,
                                                     const AlibabaOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  AlibabaConversion out;
  AlibabaReport& report = out.report;
  report.rows = rows.size();
  // Group rows by job, jobs in order of first appearance.
  std::unordered_map<std::string_view, size_t> job_index;
  std::vector<std::vector<const AlibabaTaskRow*>> by_job;
  for (const AlibabaTaskRow& row : rows) {
    const auto [it, added] = job_index.emplace(row.job, by_job.size());
    if (added) by_job.emplace_back();
    by_job[it->second].push_back(&row);
  }
  report.jobs = by_job.size();
  std::vector<AlibabaJobDraft> usable;
  for (const auto& job_rows : by_job) {
    std::variant<AlibabaJobDraft, AlibabaJobSkip> built = BuildAlibabaJob(job_rows, options);
    if (const AlibabaJobSkip* skip = std::get_if<AlibabaJobSkip>(&built)) {
      report.Count(*skip, job_rows.front()->job);
      continue;
    }
    ++report.usable;
    AlibabaJobDraft& job = std::get<AlibabaJobDraft>(built);
    if (job.tasks < options.min_tasks || job.num_stages < options.min_stages) {
      ++report.too_small;
      continue;
    }
    usable.push_back(std::move(job));
  }
  // A fixed order before sampling, so the sample depends only on the rows' content and the seed.
  std::sort(usable.begin(), usable.end(), [](const AlibabaJobDraft& a, const AlibabaJobDraft& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.name < b.name;
  });
  std::vector<AlibabaJobDraft> chosen = Sample(std::move(usable), options.max_jobs, options.seed);
  report.written = chosen.size();
  if (chosen.empty()) return absl::InvalidArgumentError(fmt::format("no job to write: {}", report.Summary()));

  json group = AlibabaMachineGroup(options);
  json& doc = out.document;
  doc = json::object();
  doc["weft"] = 1;
  doc["cluster"]["machines"] = json::array({std::move(group)});
  doc["jobs"] = json::array();
  const double first_arrival = chosen.front().arrival_s;
  for (AlibabaJobDraft& job : chosen) {
    doc["jobs"].push_back(
        {{"name", job.name}, {"arrival", job.arrival_s - first_arrival}, {"stages", std::move(job.stages)}});
  }
  // Everything above was checked, so the weft reader refusing it is a bug here, not bad input.
  absl::StatusOr<Workload> workload = ParseWorkload(doc.dump());
  if (!workload.ok()) {
    return absl::InternalError(fmt::format("converted workload is invalid: {}", StatusMessage(workload.status())));
  }
  out.workload = std::move(*workload);
  return out;
}

absl::StatusOr<AlibabaConversion> ConvertAlibabaFile(const std::string& path, const AlibabaOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));  // before reading a possibly large file
  ASSIGN_OR_RETURN(std::vector<AlibabaTaskRow> rows, ReadAlibabaTaskRowsFile(path));
  absl::StatusOr<AlibabaConversion> out = ConvertAlibabaRows(rows, options);
  if (!out.ok() && absl::IsInvalidArgument(out.status())) {
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, StatusMessage(out.status())));
  }
  return out;
}

}  // namespace weft
