// weft_bench_submit_parse: the cpu a submission of N one-task jobs costs
// the scheduler before its lock (issue 20, session 10): the typed path
// (ParseSubmission: the text parsed once, each job read once and its two
// texts written once) against the path until session 10, replayed step by
// step (the text parsed by nlohmann, read whole, its jobs re-serialized and
// read against the live nodes, each job re-serialized and read again), and
// a node agent's reading of one job description (BuildJob of the export
// form). Process cpu time (std::clock), on a two-node live cluster.
//
// usage: weft_bench_submit_parse [--jobs 200000]
#include <ctime>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "fmt/format.h"
#include "runtime/scheduler/job_intake.h"
#include "trace/workload_reader.h"

namespace {

double CpuSeconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// The jobs-only file of issue 20's bug 3: N one-task jobs.
std::string Workload(int n) {
  std::string text = R"({"weft": 1, "jobs": [)";
  for (int i = 0; i < n; ++i) {
    text += fmt::format(R"({}{{"name": "j{}", "stages": [{{"name": "s", "tasks": 1, "duration": 1e-6, )"
                        R"("demand": {{"cpu": 1, "mem": 0.001}}}}]}})",
                        i > 0 ? "," : "", i);
  }
  return text + "]}";
}

// The path until session 10 (job_intake.cc and SchedulerCore::Submit at a6b53d6).
bool OldPath(const std::string& text, const weft::Cluster& live) {
  using nlohmann::json;
  json doc = json::parse(text, nullptr, false);
  const size_t brace = text.find('{');
  const std::string spliced =
      text.substr(0, brace + 1) + "\"cluster\": " + weft::runtime::ClusterJson(live).dump() + "," + text.substr(brace + 1);
  if (!weft::ParseWorkload(spliced).ok()) return false;
  std::vector<json> specs;
  for (json& job : doc["jobs"]) specs.push_back(std::move(job));
  const json all = {{"weft", 1}, {"cluster", weft::runtime::ClusterJson(live)}, {"jobs", specs}};
  if (!weft::ParseWorkload(all.dump()).ok()) return false;
  size_t bytes = 0;
  for (const json& spec : specs) {
    const json one = {{"weft", 1}, {"cluster", weft::runtime::ClusterJson(live)}, {"jobs", json::array({spec})}};
    if (!weft::ParseWorkload(one.dump()).ok()) return false;
    bytes += spec.dump().size();
  }
  return bytes > 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cpu of a submission's parsing, typed path against the path until session 10"};
  int jobs = 200000;
  app.add_option("--jobs", jobs, "one-task jobs in the submission");
  CLI11_PARSE(app, argc, argv);
  weft::Cluster live;
  live.AddMachine("n0", weft::RackId(0), *weft::Resources::FromUnits({1, 1, 0, 0}));
  live.AddMachine("n1", weft::RackId(0), *weft::Resources::FromUnits({1, 1, 0, 0}));
  const std::string text = Workload(jobs);

  double t = CpuSeconds();
  auto typed = weft::runtime::ParseSubmission(text, live);
  const double typed_s = CpuSeconds() - t;
  if (!typed.ok()) return 1;
  t = CpuSeconds();
  if (!OldPath(text, live)) return 1;
  const double old_s = CpuSeconds() - t;
  t = CpuSeconds();
  size_t export_bytes = 0;
  for (const weft::runtime::SubmittedJob& job : *typed) {
    export_bytes += job.export_json.size();
    if (!weft::runtime::BuildJob(nlohmann::json::parse(job.export_json, nullptr, false), live).ok()) return 1;
  }
  const double agent_s = CpuSeconds() - t;
  fmt::print("{} jobs ({:.1f} MB): typed path {:.2f} cpu s, path until session 10 {:.2f} cpu s ({:.1f}x); "
             "a node agent reads a job's description in {:.2f} cpu us ({:.0f} bytes)\n",
             jobs, static_cast<double>(text.size()) / 1e6, typed_s, old_s, old_s / typed_s,
             agent_s / jobs * 1e6, static_cast<double>(export_bytes) / jobs);
  return 0;
}
