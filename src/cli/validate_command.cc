// weft validate WORKLOAD: reads a workload, checks every rule of the format,
// and prints a one-line summary (exit 0) or the first error (exit 2).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <iostream>
#include <memory>
#include <string>

#include "fmt/format.h"
#include "absl/container/btree_set.h"
#include "cli/commands.h"
#include "nlohmann/json.hpp"
#include "trace/workload_reader.h"

namespace weft::cli {
namespace {

// ModelSummary: what the workload uses of the MapReduce and locality
// additions (docs/workload-format.md), e.g. "; 3 shuffle edges (slow start
// 0.05-1), 2 stages with profiled phases, locality cost off"; empty when it
// uses none, so summaries of other workloads do not change.
std::string ModelSummary(const Workload& w) {
  uint64_t shuffles = 0, profiled = 0, overridden = 0;
  double min_slowstart = 1, max_slowstart = 0;
  for (const Job& j : w.jobs) {
    for (const Stage& s : j.stages) {
      profiled += !s.phases.empty() && s.phases.front().profiled;
      overridden += !s.demands.empty() || !s.usages.empty();
      for (const Edge& e : s.parents) {
        if (e.kind != EdgeKind::kShuffle) continue;
        ++shuffles;
        min_slowstart = std::min(min_slowstart, e.slowstart);
        max_slowstart = std::max(max_slowstart, e.slowstart);
      }
    }
  }
  const LocalityCost& cost = w.cluster.locality_cost();
  if (shuffles == 0 && profiled == 0 && overridden == 0 && !cost.enabled) return "";
  std::string out = fmt::format("; {} shuffle edges", shuffles);
  if (shuffles > 0) out += fmt::format(" (slow start {:g}-{:g})", min_slowstart, max_slowstart);
  out += fmt::format(", {} stages with profiled phases, {} with per-task demands, locality cost {}", profiled,
                     overridden, cost.enabled ? "on" : "off");
  return out;
}

// StandInCluster: the cluster section a jobs-only file (no "cluster", as
// `weft submit` accepts) is read against. Only the scheduler knows its
// nodes, so every rule that depends on them is left to it: one machine per
// name the file's locality lists (the scheduler requires them to be node
// names) plus one more, each so large that every demand the format allows
// fits, and all of them together still inside the resources' range.
nlohmann::json StandInCluster(const nlohmann::json& doc) {
  absl::btree_set<std::string> names;
  if (doc.contains("jobs") && doc["jobs"].is_array()) {
    for (const nlohmann::json& job : doc["jobs"]) {
      if (!job.is_object() || !job.contains("stages") || !job["stages"].is_array()) continue;
      for (const nlohmann::json& stage : job["stages"]) {
        if (!stage.is_object() || !stage.contains("locality") || !stage["locality"].is_array()) continue;
        for (const nlohmann::json& prefs : stage["locality"]) {
          if (!prefs.is_array()) continue;
          for (const nlohmann::json& name : prefs) {
            if (name.is_string()) names.insert(name.get<std::string>());
          }
        }
      }
    }
  }
  std::string spare = "any-node";
  while (names.contains(spare)) spare += "-";
  names.insert(spare);
  const double each = 1e12 / static_cast<double>(names.size());  // Resources::FromUnits' bound, shared out
  nlohmann::json capacity = nlohmann::json::object();
  for (std::string_view r : kResourceNames) capacity[std::string(r)] = each;
  nlohmann::json machines = nlohmann::json::array();
  for (const std::string& name : names) machines.push_back({{"name", name}, {"capacity", capacity}});
  return {{"machines", machines}};
}

// ReadForValidate: the workload at `path`, or nullopt after printing the
// first error; `jobs_only` says whether it had no cluster section.
std::optional<Workload> ReadForValidate(const std::string& path, bool& jobs_only) {
  jobs_only = false;
  absl::StatusOr<Workload> read = ReadWorkloadFile(path);
  if (read.ok()) return std::move(*read);
  // Read again only when the file has no cluster: every other error
  // (a missing file, a folder, bad JSON) is the first reading's, in its words.
  std::error_code ec;
  std::string text;
  if (std::filesystem::is_regular_file(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  absl::StatusOr<nlohmann::json> doc = ParseWorkloadJson(text);
  if (doc.ok() && doc->is_object() && !doc->empty() && !doc->contains("cluster")) {
    jobs_only = true;
    (*doc)["cluster"] = StandInCluster(*doc);
    read = ReadWorkloadJson(*doc);
    if (read.ok()) return std::move(*read);
    std::cerr << fmt::format("error: {}: {}\n", path, std::string(read.status().message()));
    return std::nullopt;
  }
  std::cerr << "error: " << read.status().message() << "\n";
  return std::nullopt;
}

}  // namespace

void AddValidateCommand(CLI::App& app, CommandRun& run) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a workload file and summarise it");
  cmd->add_option("workload", *path, "Workload file (weft JSON)")->required();
  cmd->callback([&run, path] {
    run = [path] {
      bool jobs_only = false;
      const std::optional<Workload> workload = ReadForValidate(*path, jobs_only);
      if (!workload) return kExitBadInput;
      double cpu_seconds = 0;
      for (const Job& j : workload->jobs) cpu_seconds += j.CpuSeconds();
      // A jobs-only file's machines are the scheduler's nodes, unknown here.
      const std::string machines = jobs_only ? "jobs only (what fits is checked by the scheduler against its nodes)"
                                             : fmt::format("{} machines", workload->cluster.size());
      std::cout << fmt::format("{}: ok: {} jobs, {} stages, {} tasks, {}, {:.1f} cpu-seconds of work{}\n", *path,
                               workload->jobs.size(), workload->NumStages(), workload->NumTasks(), machines,
                               cpu_seconds, ModelSummary(*workload));
      return kExitOk;
    };
  });
}

std::optional<Workload> ReadWorkloadOrReport(const std::string& path) {
  absl::StatusOr<Workload> workload = ReadWorkloadFile(path);
  if (workload.ok()) return std::move(*workload);
  std::cerr << "error: " << workload.status().message() << "\n";
  return std::nullopt;
}

}  // namespace weft::cli
