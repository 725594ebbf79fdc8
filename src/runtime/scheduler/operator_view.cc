#include "runtime/scheduler/operator_view.h"

#include <algorithm>
#include <map>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace weft::runtime {
namespace {

uint32_t GlobalId(uint32_t local, const v1::ExportChunk& chunk) {
  return chunk.replicas() > 1 ? local * chunk.replicas() + chunk.replica() : local;
}

nlohmann::json ResourcesJson(const v1::ResourceVector& r) {
  return {{"cpu", r.cpu()}, {"mem", r.mem()}, {"disk", r.disk()}, {"net", r.net()}};
}

bool Active(const v1::JobStatus& j) { return j.state() == "waiting" || j.state() == "running"; }

// Buckets in seconds for job times: from a short task to a long batch job.
constexpr double kBuckets[] = {0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400};

void Histogram(const char* name, const char* help, std::vector<double> values, std::string& out) {
  std::sort(values.begin(), values.end());
  out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  double sum = 0;
  for (double v : values) sum += v;
  for (double le : kBuckets) {
    const auto n = std::upper_bound(values.begin(), values.end(), le) - values.begin();
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, le, n);
  }
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, values.size(), name, sum, name,
                     values.size());
}

// LabelValue: `text` escaped for a label value of the text format.
std::string LabelValue(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Users: per user of the active jobs, its running tasks and active jobs.
std::map<std::string, std::pair<uint64_t, uint64_t>> Users(const v1::StatusReply& status, const ExportFacts& facts) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> per_user;
  for (const v1::JobStatus& j : status.jobs()) {
    if (!Active(j)) continue;
    const auto known = facts.jobs.find(j.id());
    auto& [running, active] = per_user[known == facts.jobs.end() ? "" : known->second.user];
    running += j.running();
    ++active;
  }
  return per_user;
}

}  // namespace

ExportFacts ExportFactsOf(const v1::ExportChunk& chunk) {
  ExportFacts facts;
  facts.epoch_unix_us = chunk.epoch_unix_us();
  // Jobs by local id, in the workload's order (results_export.h); keyed by
  // global id once complete (the map's entries move as it grows).
  std::vector<ExportFacts::Job> by_local;
  const nlohmann::json doc = nlohmann::json::parse(chunk.workload_json(), nullptr, false);
  if (doc.is_object() && doc.contains("jobs") && doc["jobs"].is_array()) {
    for (const nlohmann::json& j : doc["jobs"]) {
      ExportFacts::Job& job = by_local.emplace_back();
      if (!j.is_object()) continue;
      if (auto u = j.find("user"); u != j.end() && u->is_string()) job.user = u->get<std::string>();
      if (auto st = j.find("stages"); st != j.end() && st->is_array()) {
        for (const nlohmann::json& s : *st) {
          ExportFacts::Stage stage;
          if (s.is_object()) {
            if (auto n = s.find("name"); n != s.end() && n->is_string()) stage.name = n->get<std::string>();
            if (auto t = s.find("tasks"); t != s.end() && t->is_number_unsigned()) stage.tasks = t->get<uint64_t>();
          }
          if (stage.name.empty()) stage.name = fmt::format("stage {}", job.stages.size());
          job.stages.push_back(std::move(stage));
        }
      }
    }
  }
  for (const v1::AttemptRow& a : chunk.attempts()) {
    if (a.outcome() != "ok" || a.job() >= by_local.size()) continue;
    std::vector<ExportFacts::Stage>& stages = by_local[a.job()].stages;
    if (a.stage() < stages.size()) ++stages[a.stage()].done;
  }
  facts.jobs.reserve(by_local.size());
  for (uint32_t local = 0; local < by_local.size(); ++local) {
    facts.jobs.emplace(GlobalId(local, chunk), std::move(by_local[local]));
  }
  for (const v1::JobRow& row : chunk.jobs()) {
    if (row.end_us() <= 0 || row.state().empty() || row.state() == "running") continue;
    facts.completion_s.push_back(static_cast<double>(row.end_us() - row.arrival_us()) / 1e6);
    if (row.start_us() > 0) facts.queue_wait_s.push_back(static_cast<double>(row.start_us() - row.arrival_us()) / 1e6);
  }
  return facts;
}

std::string CurrentStage(const ExportFacts::Job& job) {
  for (const ExportFacts::Stage& s : job.stages) {
    if (s.done < s.tasks) return s.name;
  }
  return "";
}

std::map<std::string, uint64_t> RunningByUser(const v1::StatusReply& status, const ExportFacts& facts) {
  std::map<std::string, uint64_t> running;
  for (const auto& [user, counts] : Users(status, facts)) running[user] = counts.first;
  return running;
}

std::string OperatorJobsJson(const v1::StatusReply& status, const ExportFacts& facts, double now_s,
                             const ShareHistory& history) {
  nlohmann::json jobs = nlohmann::json::array();
  nlohmann::json failures = nlohmann::json::array();
  nlohmann::json queued = nlohmann::json::array();
  uint64_t running_total = 0, running_jobs = 0, queued_jobs = 0;
  static const ExportFacts::Job kUnknown;
  for (const v1::JobStatus& j : status.jobs()) {
    const auto known = facts.jobs.find(j.id());
    const ExportFacts::Job& job = known == facts.jobs.end() ? kUnknown : known->second;
    if (Active(j)) {
      const bool running = j.state() == "running";
      ++(running ? running_jobs : queued_jobs);
      running_total += j.running();
      nlohmann::json& list = running ? jobs : queued;
      if (list.size() >= kMaxJobs) continue;
      list.push_back({{"id", j.id()},
                      {"name", j.name()},
                      {"user", job.user},
                      {"state", j.state()},
                      {"done", j.done()},
                      {"tasks", j.tasks()},
                      {"running", j.running()},
                      {"age_s", std::max(0.0, now_s - j.submitted_s())},
                      {"stage", CurrentStage(job)}});
    }
    if (j.has_last_failure()) {
      const v1::TaskFailure& f = j.last_failure();
      failures.push_back({{"job", j.id()},
                          {"name", j.name()},
                          {"user", job.user},
                          {"stage", f.stage() < job.stages.size() ? job.stages[f.stage()].name
                                                                  : fmt::format("stage {}", f.stage())},
                          {"task", f.task()},
                          {"attempt", f.attempt()},
                          {"node", f.node()},
                          {"exit_code", f.exit_code()},
                          {"signal", f.signal()},
                          {"error", f.error()},
                          {"stderr_tail", f.stderr_tail()}});
    }
  }
  // Running jobs, then the oldest queued ones, up to kMaxJobs: what an
  // operator can read; the counts say how many there are in all.
  for (nlohmann::json& q : queued) {
    if (jobs.size() >= kMaxJobs) break;
    jobs.push_back(std::move(q));
  }
  // Newest jobs first, a bounded list: the page is for what happens now.
  std::reverse(failures.begin(), failures.end());
  if (failures.size() > kMaxFailures) failures.erase(failures.begin() + kMaxFailures, failures.end());
  nlohmann::json shares = nlohmann::json::array();
  for (const auto& [user, counts] : Users(status, facts)) {
    shares.push_back({{"user", user},
                      {"running", counts.first},
                      {"jobs", counts.second},
                      {"share", running_total > 0 ? static_cast<double>(counts.first) / running_total : 0.0}});
  }
  const nlohmann::json out = {{"policy", status.policy()},
                              {"ready", status.ready()},
                              {"nodes_up", status.nodes_up()},
                              {"nodes_expected", status.nodes_expected()},
                              {"journal_error", status.journal_error()},
                              {"now_s", now_s},
                              {"jobs_running", running_jobs},
                              {"jobs_queued", queued_jobs},
                              {"jobs", jobs},
                              {"failures", failures},
                              {"shares", shares},
                              {"share_history", history.Json()}};
  // What a node sent (stderr, a reason) may not be UTF-8: replaced, not thrown on.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string OperatorNodesJson(const v1::StatusReply& status) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const v1::NodeStatus& n : status.nodes()) {
    nodes.push_back({{"name", n.name()},
                     {"up", n.up()},
                     {"capacity", ResourcesJson(n.capacity())},
                     {"reserved", ResourcesJson(n.reserved())},
                     {"used", ResourcesJson(n.used())}});
  }
  const nlohmann::json out = {
      {"nodes_up", status.nodes_up()}, {"nodes_expected", status.nodes_expected()}, {"nodes", nodes}};
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string JobTimeHistograms(const ExportFacts& facts) {
  std::string out;
  Histogram("weft_job_queue_wait_seconds", "Ended jobs: time from arrival to the first task's start.",
            facts.queue_wait_s, out);
  Histogram("weft_job_completion_seconds", "Ended jobs: time from arrival to the end (JCT).", facts.completion_s, out);
  return out;
}

std::string UserGauges(const v1::StatusReply& status, const ExportFacts& facts) {
  const auto per_user = Users(status, facts);
  if (per_user.empty()) return "";
  std::string running = "# HELP weft_user_running_tasks Tasks launched or running, by the user of their job.\n"
                        "# TYPE weft_user_running_tasks gauge\n";
  std::string jobs = "# HELP weft_user_active_jobs Jobs waiting or running, by user.\n"
                     "# TYPE weft_user_active_jobs gauge\n";
  for (const auto& [user, counts] : per_user) {
    running += fmt::format("weft_user_running_tasks{{user=\"{}\"}} {}\n", LabelValue(user), counts.first);
    jobs += fmt::format("weft_user_active_jobs{{user=\"{}\"}} {}\n", LabelValue(user), counts.second);
  }
  return running + jobs;
}

}  // namespace weft::runtime
